import { and, asc, count, eq, gte, inArray, isNotNull, lt, max, notInArray, sql, sum } from 'drizzle-orm';
import { obBanks, obConsents, obUsers } from '../../db/schema/openbanking.ts';
import { obPayments } from '../../db/schema/openbanking-payments.ts';
import { decimalOf, PAYMENT_STATUSES, type PaymentStatus } from '../../domain/openbanking/payments.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { dayRange } from './payment/search.ts';

/**
 * The agent's reports: active users of a period and the payment audit per bank.
 *
 * An **active user** (decision 0034) is a user of the agent who, in the period (UTC days, inclusive),
 * created at least one payment (a single payment or an entry of a bulk, whatever became of it) or
 * authorised at least one consent (a consent created in the period that the bank sent back and that was
 * not refused, abandoned or failed). Users deleted since are still counted for the period they were
 * active in.
 */

export interface ReportPeriod {
  dateFrom: string;
  dateTo: string;
}

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
async function activeUsersOf(
  deps: UseCaseDeps,
  agentId: string,
  period: ReportPeriod,
): Promise<ActiveUser[]> {
  const { db } = deps;
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

export interface ActiveUsersReport extends ReportPeriod {
  activeUsers: number;
  payingUsers: number;
  consentingUsers: number;
  payments: number;
  confirmedPayments: number;
}

/** POST reports/active-users: how many of the agent's users were active in the period. */
export async function activeUsersReport(
  deps: UseCaseDeps,
  { agentId, ...period }: ReportPeriod & { agentId: string },
): Promise<ActiveUsersReport> {
  const users = await activeUsersOf(deps, agentId, period);
  const total = (pick: (user: ActiveUser) => number) => users.reduce((sum, user) => sum + pick(user), 0);
  return {
    ...period,
    activeUsers: users.length,
    payingUsers: users.filter((user) => user.payments > 0).length,
    consentingUsers: users.filter((user) => user.consents > 0).length,
    payments: total((user) => user.payments),
    confirmedPayments: total((user) => user.confirmedPayments),
  };
}

export interface ActiveUsersDetails extends ReportPeriod {
  page: number;
  size: number;
  total: number;
  items: ActiveUser[];
}

/** POST reports/active-users-details: the active users of the period, one line each, a page at a time. */
export async function activeUsersDetails(
  deps: UseCaseDeps,
  { agentId, ...request }: ReportPeriod & { agentId: string; page: number; size: number },
): Promise<ActiveUsersDetails> {
  const { dateFrom, dateTo, page, size } = request;
  const users = await activeUsersOf(deps, agentId, { dateFrom, dateTo });
  return {
    dateFrom,
    dateTo,
    page,
    size,
    total: users.length,
    items: users.slice((page - 1) * size, page * size),
  };
}

interface AuditFigures {
  count: number;
  amount: string;
}

export interface AuditByBank extends ReportPeriod {
  banks: {
    bankHash: string;
    bankName: string;
    currencies: (AuditFigures & {
      currency: string;
      confirmed: AuditFigures;
      failed: AuditFigures;
      waiting: AuditFigures;
    })[];
  }[];
}

/**
 * GET audit-by-bank: the agent's own payments (single and bulk entries) created in the period, counted
 * and summed per bank and currency, in all and by status. Amounts of different currencies are never
 * added together.
 */
export async function auditByBank(
  deps: UseCaseDeps,
  { agentId, ...period }: ReportPeriod & { agentId: string },
): Promise<AuditByBank> {
  const { dateFrom, dateTo } = period;
  const { from, to } = dayRange(dateFrom, dateTo);
  const rows = await deps.db
    .select({
      bankHash: obPayments.bankHash,
      bankName: obBanks.name,
      currency: obPayments.currency,
      status: obPayments.status,
      count: count(),
      amountMinor: sum(obPayments.amountMinor),
    })
    .from(obPayments)
    .innerJoin(obBanks, eq(obBanks.bankHash, obPayments.bankHash))
    .where(
      and(eq(obPayments.agentId, agentId), gte(obPayments.createdAt, from), lt(obPayments.createdAt, to)),
    )
    .groupBy(obPayments.bankHash, obBanks.name, obPayments.currency, obPayments.status)
    .orderBy(asc(obBanks.name), asc(obPayments.bankHash), asc(obPayments.currency));

  const banks = new Map<
    string,
    { bankHash: string; bankName: string; currencies: Map<string, Record<string, number>> }
  >();
  for (const row of rows) {
    const bank = banks.get(row.bankHash) ?? {
      bankHash: row.bankHash,
      bankName: row.bankName,
      currencies: new Map(),
    };
    banks.set(row.bankHash, bank);
    const totals = bank.currencies.get(row.currency) ?? {};
    bank.currencies.set(row.currency, totals);
    totals[`${row.status}:count`] = row.count;
    totals[`${row.status}:amount`] = Number(row.amountMinor ?? 0);
  }
  const figuresOf = (totals: Record<string, number>, statuses: readonly PaymentStatus[]): AuditFigures => ({
    count: statuses.reduce((total, status) => total + (totals[`${status}:count`] ?? 0), 0),
    amount: decimalOf(statuses.reduce((total, status) => total + (totals[`${status}:amount`] ?? 0), 0)),
  });
  return {
    dateFrom,
    dateTo,
    banks: [...banks.values()].map((bank) => ({
      bankHash: bank.bankHash,
      bankName: bank.bankName,
      currencies: [...bank.currencies.entries()].map(([currency, totals]) => ({
        currency,
        ...figuresOf(totals, PAYMENT_STATUSES),
        confirmed: figuresOf(totals, ['CONFIRMED']),
        failed: figuresOf(totals, ['FAILED']),
        waiting: figuresOf(totals, ['WAITING']),
      })),
    })),
  };
}
