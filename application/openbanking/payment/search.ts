import { and, asc, count, desc, eq, gte, inArray, isNotNull, isNull, lt, lte, type SQL } from 'drizzle-orm';
import { obPayments, type PaymentRow } from '../../../db/schema/openbanking-payments.ts';
import {
  minorOf,
  type PaymentKind,
  type PaymentState,
  type PaymentStatus,
} from '../../../domain/openbanking/payments.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';
import { type PaymentView, toPaymentView } from './read.ts';

/**
 * The agent's payments as its searches read them (`POST payments`, `POST payments/search-last-updated`,
 * the entries of `POST bulk-payments/search`): one read model, ob_payments, holding single payments and
 * bulk entries alike; every query is scoped to the calling agent first.
 */

/** [from, to) instants of the inclusive UTC days dateFrom…dateTo. */
export const dayRange = (dateFrom: string, dateTo: string) => ({
  from: new Date(`${dateFrom}T00:00:00Z`),
  to: new Date(Date.parse(`${dateTo}T00:00:00Z`) + 86_400_000),
});

export interface PaymentCriteria {
  statuses?: PaymentStatus[] | undefined;
  states?: PaymentState[] | undefined;
  kinds?: PaymentKind[] | undefined;
  userId?: string | undefined;
  ibanId?: string | undefined;
  bankHash?: string | undefined;
  hookHash?: string | undefined;
  bulkId?: string | undefined;
  inBulk?: boolean | undefined;
  currency?: string | undefined;
  creditorIban?: string | undefined;
  amountFrom?: string | undefined;
  amountTo?: string | undefined;
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
  updatedFrom?: string | undefined;
  updatedTo?: string | undefined;
}

export const PAYMENT_SORT_FIELDS = ['createdAt', 'updatedAt', 'amount', 'status'] as const;
export type PaymentSortField = (typeof PAYMENT_SORT_FIELDS)[number];

/** A payment as the agent's searches answer it: the payment's record, with its user and its bulk. */
export interface AgentPaymentView extends PaymentView {
  userId: string;
  bulkId: string | null;
  bulkSeq: number | null;
}

export const toAgentPayment = (row: PaymentRow): AgentPaymentView => ({
  ...toPaymentView(row),
  userId: row.userId,
  bulkId: row.bulkId,
  bulkSeq: row.bulkSeq,
});

export interface PaymentPage {
  page: number;
  size: number;
  total: number;
  items: AgentPaymentView[];
}

/** The conditions of `criteria` over the agent's payments (the agent's scope always first). */
function paymentConditions(agentId: string, criteria: PaymentCriteria = {}): SQL {
  const conditions: (SQL | undefined)[] = [eq(obPayments.agentId, agentId)];
  const { statuses, states, kinds } = criteria;
  if (statuses) conditions.push(inArray(obPayments.status, statuses));
  if (states) conditions.push(inArray(obPayments.state, states));
  if (kinds) conditions.push(inArray(obPayments.kind, kinds));
  if (criteria.userId) conditions.push(eq(obPayments.userId, criteria.userId));
  if (criteria.ibanId) conditions.push(eq(obPayments.ibanId, criteria.ibanId));
  if (criteria.bankHash) conditions.push(eq(obPayments.bankHash, criteria.bankHash));
  if (criteria.hookHash) conditions.push(eq(obPayments.hookHash, criteria.hookHash));
  if (criteria.bulkId) conditions.push(eq(obPayments.bulkId, criteria.bulkId));
  if (criteria.currency) conditions.push(eq(obPayments.currency, criteria.currency));
  if (criteria.creditorIban) conditions.push(eq(obPayments.creditorIban, criteria.creditorIban));
  if (criteria.amountFrom) conditions.push(gte(obPayments.amountMinor, minorOf(criteria.amountFrom)));
  if (criteria.amountTo) conditions.push(lte(obPayments.amountMinor, minorOf(criteria.amountTo)));
  if (criteria.inBulk !== undefined)
    conditions.push(criteria.inBulk ? isNotNull(obPayments.bulkId) : isNull(obPayments.bulkId));
  if (criteria.dateFrom)
    conditions.push(gte(obPayments.createdAt, dayRange(criteria.dateFrom, criteria.dateFrom).from));
  if (criteria.dateTo)
    conditions.push(lt(obPayments.createdAt, dayRange(criteria.dateTo, criteria.dateTo).to));
  if (criteria.updatedFrom)
    conditions.push(gte(obPayments.updatedAt, dayRange(criteria.updatedFrom, criteria.updatedFrom).from));
  if (criteria.updatedTo)
    conditions.push(lt(obPayments.updatedAt, dayRange(criteria.updatedTo, criteria.updatedTo).to));
  return and(...conditions)!;
}

const SORT_COLUMNS = {
  createdAt: obPayments.createdAt,
  updatedAt: obPayments.updatedAt,
  amount: obPayments.amountMinor,
  status: obPayments.status,
} as const;

/** A page of the agent's payments matching `criteria`, sorted by `sortBy` (ties by code, so pages are stable). */
export async function searchPayments(
  deps: UseCaseDeps,
  {
    agentId,
    criteria,
    ...paging
  }: {
    agentId: string;
    criteria?: PaymentCriteria | undefined;
    sortBy: PaymentSortField;
    sortDirection: 'asc' | 'desc';
    page: number;
    size: number;
  },
): Promise<PaymentPage> {
  const { db } = deps;
  const sort = paging;
  const where = paymentConditions(agentId, criteria);
  const order = sort.sortDirection === 'asc' ? asc : desc;
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(obPayments)
      .where(where)
      .orderBy(order(SORT_COLUMNS[sort.sortBy]), order(obPayments.code))
      .limit(paging.size)
      .offset((paging.page - 1) * paging.size),
    db.select({ value: count() }).from(obPayments).where(where),
  ]);
  return { page: paging.page, size: paging.size, total: total?.value ?? 0, items: rows.map(toAgentPayment) };
}
