import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { AGENT_SECURITY, requireAgent } from './identity.ts';
import { pagingFields } from './payment-search.ts';
import { MAX_REPORT_DAYS, periodRules, reportPeriodFields } from './reports-active-users.ts';

/**
 * `POST /api/8/reports/active-users-details`: the agent's active users of a period (the definition is
 * in application/openbanking/reports.ts), one line each, most recently active first, a page at a time.
 */

const body = periodRules(z.object({ ...reportPeriodFields, ...pagingFields })).openapi(
  'ActiveUsersDetailsRequest',
);

const detailsSchema = z
  .object({
    dateFrom: z.string(),
    dateTo: z.string(),
    page: z.number().int(),
    size: z.number().int(),
    total: z.number().int().openapi({ description: 'Active users in the period, all pages' }),
    items: z.array(
      z.object({
        userId: z.string(),
        email: z.string(),
        name: z.string(),
        family: z.string(),
        companyName: z.string().nullable(),
        deleted: z.boolean().openapi({ description: 'Deleted since (still counted for this period)' }),
        payments: z.number().int(),
        confirmedPayments: z.number().int(),
        consents: z.number().int().openapi({ description: 'Consents authorised in the period' }),
        lastActivityAt: z.string(),
      }),
    ),
  })
  .openapi('ActiveUsersDetails');

export const reportsActiveUsersDetailsOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'post',
      path: '/reports/active-users-details',
      operationId: 'activeUsersDetailsReport',
      tags: ['Reports'],
      summary: 'Active users details report',
      description:
        'The agent’s active users from `dateFrom` to `dateTo` (UTC days, inclusive, at most ' +
        `${MAX_REPORT_DAYS} days) with their payments and authorised consents of the period, most recently active ` +
        'first (ties by user id), paged. An active user created a payment or authorised a consent in the period.',
      security: AGENT_SECURITY,
      request: { body: jsonBody(body) },
      responses: {
        200: { description: 'The report', content: { 'application/json': { schema: detailsSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { agentId } = await requireAgent(c);
    return c.json(
      await openbanking.activeUsersDetails(c.get('deps'), { agentId, ...c.req.valid('json') }),
      200,
    );
  },
});
