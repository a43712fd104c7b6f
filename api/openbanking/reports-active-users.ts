import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { AGENT_SECURITY, requireAgent } from './identity.ts';
import { DATES_OUT_OF_ORDER, isoDay } from './payment-search.ts';

/**
 * `POST /api/8/reports/active-users`: how many of the agent's users were active in a period.
 *
 * An **active user** (decision 0034): application/openbanking/reports.ts.
 */

export const MAX_REPORT_DAYS = 366;

export const reportPeriodFields = {
  dateFrom: isoDay.openapi({ description: 'First day of the period (UTC), required', example: '2026-11-01' }),
  dateTo: isoDay.openapi({ description: 'Last day of the period (UTC), required', example: '2026-11-30' }),
};

/** The period's own rules: in order, and at most MAX_REPORT_DAYS days. */
export const periodRules = <T extends z.ZodType<{ dateFrom: string; dateTo: string }>>(schema: T) =>
  schema
    .refine((value) => value.dateFrom <= value.dateTo, DATES_OUT_OF_ORDER)
    .refine((value) => Date.parse(value.dateTo) - Date.parse(value.dateFrom) < MAX_REPORT_DAYS * 86_400_000, {
      message: `the period is at most ${MAX_REPORT_DAYS} days`,
      path: ['dateTo'],
    });

const body = periodRules(z.object(reportPeriodFields)).openapi('ActiveUsersReportRequest');

const reportSchema = z
  .object({
    dateFrom: z.string(),
    dateTo: z.string(),
    activeUsers: z.number().int().openapi({ description: 'Users with a payment or an authorised consent' }),
    payingUsers: z.number().int().openapi({ description: 'Of them, users who created a payment' }),
    consentingUsers: z.number().int().openapi({ description: 'Of them, users who authorised a consent' }),
    payments: z
      .number()
      .int()
      .openapi({ description: 'Payments created in the period (single and bulk entries)' }),
    confirmedPayments: z.number().int(),
  })
  .openapi('ActiveUsersReport');

export const reportsActiveUsersOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'post',
      path: '/reports/active-users',
      operationId: 'activeUsersReport',
      tags: ['Reports'],
      summary: 'Active users report',
      description:
        'How many of the agent’s users were active from `dateFrom` to `dateTo` (UTC days, inclusive, at most ' +
        `${MAX_REPORT_DAYS} days): an active user created at least one payment (single or bulk entry) or authorised ` +
        'at least one consent in the period. Both dates are required; dateFrom after dateTo is 400.',
      security: AGENT_SECURITY,
      request: { body: jsonBody(body) },
      responses: {
        200: { description: 'The report', content: { 'application/json': { schema: reportSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { agentId } = await requireAgent(c);
    return c.json(
      await openbanking.activeUsersReport(c.get('deps'), { agentId, ...c.req.valid('json') }),
      200,
    );
  },
});
