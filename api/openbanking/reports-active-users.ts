import { createRoute, z } from '@hono/zod-openapi';
import { and, count, eq, gte, inArray, isNotNull, lt, max, notInArray, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { obConsents, obUsers } from '../../db/schema/openbanking.ts';
import { obPayments } from '../../db/schema/openbanking-payments.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { AGENT_SECURITY, requireAgent } from './identity.ts';
import { DATES_OUT_OF_ORDER, dayRange, isoDay } from './payment-search.ts';

/**
 * `POST /api/8/reports/active-users`: how many of the agent's users were active in a period.
 *
 * An **active user** (decision 0034) is a user of the agent who, in the period (UTC days, inclusive),
 * created at least one payment (a single payment or an entry of a bulk, whatever became of it) or
 * authorised at least one consent (a consent created in the period that the bank sent back and that was
 * not refused, abandoned or failed). Users deleted since are still counted for the period they were
 * active in.
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

export interface ActiveUser {
  userId: string;
  email: string;
  name: string;
  family: string;
  companyName: string | null;
  deleted: boolean;
  payments: number;
  confirmedPayments: number;
  consents: number;
  lastActivityAt: string;
}

/** The agent's active users in the period, most recently active first (ties by user id). */
export async function activeUsersOf(
  db: Database,
  agentId: string,
  period: { dateFrom: string; dateTo: string },
): Promise<ActiveUser[]> {
  const { from, to } = dayRange(period.dateFrom, period.dateTo);
  const [payments, consents] = await Promise.all([
    db
      .select({
        userId: obPayments.userId,
        payments: count(),
        confirmed: count(sql`case when ${obPayments.status} = 'CONFIRMED' then 1 end`),
        lastAt: max(obPayments.createdAt),
      })
      .from(obPayments)
      .where(
        and(eq(obPayments.agentId, agentId), gte(obPayments.createdAt, from), lt(obPayments.createdAt, to)),
      )
      .groupBy(obPayments.userId),
    db
      .select({ userId: obConsents.userId, consents: count(), lastAt: max(obConsents.createdAt) })
      .from(obConsents)
      .where(
        and(
          eq(obConsents.agentId, agentId),
          gte(obConsents.createdAt, from),
          lt(obConsents.createdAt, to),
          isNotNull(obConsents.callbackAt),
          notInArray(obConsents.status, ['AWAITING_SCA', 'REJECTED', 'ABANDONED', 'FAILED']),
        ),
      )
      .groupBy(obConsents.userId),
  ]);
  const activity = new Map<
    string,
    { payments: number; confirmed: number; consents: number; lastAt: number }
  >();
  const note = (
    userId: string,
    lastAt: Date | null,
    add: { payments?: number; confirmed?: number; consents?: number },
  ) => {
    const entry = activity.get(userId) ?? { payments: 0, confirmed: 0, consents: 0, lastAt: 0 };
    entry.payments += add.payments ?? 0;
    entry.confirmed += add.confirmed ?? 0;
    entry.consents += add.consents ?? 0;
    entry.lastAt = Math.max(entry.lastAt, lastAt?.getTime() ?? 0);
    activity.set(userId, entry);
  };
  for (const row of payments)
    note(row.userId, row.lastAt, { payments: row.payments, confirmed: row.confirmed });
  for (const row of consents) note(row.userId, row.lastAt, { consents: row.consents });
  if (activity.size === 0) return [];
  const users = await db
    .select()
    .from(obUsers)
    .where(and(eq(obUsers.agentId, agentId), inArray(obUsers.id, [...activity.keys()])));
  return users
    .map((user) => {
      const entry = activity.get(user.id)!;
      return {
        userId: user.id,
        email: user.email,
        name: user.name,
        family: user.family,
        companyName: user.companyName,
        deleted: user.deletedAt !== null,
        payments: entry.payments,
        confirmedPayments: entry.confirmed,
        consents: entry.consents,
        lastActivityAt: new Date(entry.lastAt).toISOString(),
      };
    })
    .sort((a, b) => b.lastActivityAt.localeCompare(a.lastActivityAt) || a.userId.localeCompare(b.userId));
}

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
    const period = c.req.valid('json');
    const users = await activeUsersOf(c.get('deps').db, agentId, period);
    const sum = (pick: (user: ActiveUser) => number) => users.reduce((total, user) => total + pick(user), 0);
    return c.json(
      {
        ...period,
        activeUsers: users.length,
        payingUsers: users.filter((user) => user.payments > 0).length,
        consentingUsers: users.filter((user) => user.consents > 0).length,
        payments: sum((user) => user.payments),
        confirmedPayments: sum((user) => user.confirmedPayments),
      },
      200,
    );
  },
});
