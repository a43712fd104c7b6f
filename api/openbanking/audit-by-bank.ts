import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { AGENT_SECURITY, requireAgent } from './identity.ts';
import { MAX_REPORT_DAYS, periodRules, reportPeriodFields } from './reports-active-users.ts';

/**
 * `GET /api/9/audit-by-bank?dateFrom=&dateTo=`: the agent's own payments (single and bulk entries)
 * created in the period, counted and summed per bank and currency, in all and by status. Amounts of
 * different currencies are never added together.
 */

const figures = z.object({
  count: z.number().int(),
  amount: z.string().openapi({ description: 'Sum of the amounts', example: '1250.00' }),
});

const auditSchema = z
  .object({
    dateFrom: z.string(),
    dateTo: z.string(),
    banks: z.array(
      z.object({
        bankHash: z.string(),
        bankName: z.string(),
        currencies: z.array(
          figures.extend({
            currency: z.string(),
            confirmed: figures.openapi({ description: 'CONFIRMED: the money moved' }),
            failed: figures,
            waiting: figures,
          }),
        ),
      }),
    ),
  })
  .openapi('AuditByBank');

export const auditByBankOperation = defineOperation({
  versions: [9],
  route: () =>
    createRoute({
      method: 'get',
      path: '/audit-by-bank',
      operationId: 'auditByBank',
      tags: ['Reports'],
      summary: 'Payment audit per bank: count and sum',
      description:
        'The agent’s payments (single and bulk entries) created from `dateFrom` to `dateTo` (UTC days, inclusive, ' +
        `both required, at most ${MAX_REPORT_DAYS} days), per bank and currency: how many and their sum, in all and ` +
        'by status (CONFIRMED, FAILED, WAITING). Banks by name; only banks with payments are listed.',
      security: AGENT_SECURITY,
      request: { query: periodRules(z.object(reportPeriodFields)) },
      responses: {
        200: { description: 'The audit', content: { 'application/json': { schema: auditSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { agentId } = await requireAgent(c);
    return c.json(await openbanking.auditByBank(c.get('deps'), { agentId, ...c.req.valid('query') }), 200);
  },
});
