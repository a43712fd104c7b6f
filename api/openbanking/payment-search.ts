import { z } from '@hono/zod-openapi';
import { and, asc, count, desc, eq, gte, inArray, isNotNull, isNull, lt, lte, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { obPayments, type PaymentRow } from '../../db/schema/openbanking-payments.ts';
import {
  minorOf,
  PAYMENT_KINDS,
  PAYMENT_STATES,
  PAYMENT_STATUSES,
} from '../../domain/openbanking/payments.ts';
import { paymentSchema, toPaymentRecord } from './payment-records.ts';

/**
 * The agent's payments as its searches read them (`POST payments`, `POST payments/search-last-updated`,
 * the entries of `POST bulk-payments/search`): one read model, ob_payments, holding single payments and
 * bulk entries alike; every query is scoped to the calling agent first. Also the date and paging fields
 * every report shares.
 */

export const PAGE_SIZE = { default: 50, max: 500 } as const;

/** A calendar day YYYY-MM-DD (UTC). */
export const isoDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date YYYY-MM-DD', abort: true })
  .refine((value) => {
    const day = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(value);
  }, 'not a calendar date');

/** [from, to) instants of the inclusive UTC days dateFrom…dateTo. */
export const dayRange = (dateFrom: string, dateTo: string) => ({
  from: new Date(`${dateFrom}T00:00:00Z`),
  to: new Date(Date.parse(`${dateTo}T00:00:00Z`) + 86_400_000),
});

/** `dateFrom` must not be after `dateTo` (400 naming dateFrom). */
export const datesInOrder = <T extends { dateFrom?: string | undefined; dateTo?: string | undefined }>(
  value: T,
) => !value.dateFrom || !value.dateTo || value.dateFrom <= value.dateTo;
export const DATES_OUT_OF_ORDER = { message: 'must not be after dateTo', path: ['dateFrom'] };

export const pagingFields = {
  page: z.number().int().min(1).default(1).openapi({ description: 'Page number, from 1', example: 1 }),
  size: z
    .number()
    .int()
    .min(1)
    .max(PAGE_SIZE.max)
    .default(PAGE_SIZE.default)
    .openapi({ description: `Items per page, 1-${PAGE_SIZE.max}`, example: PAGE_SIZE.default }),
};

const amountFilter = z
  .string()
  .regex(/^\d{1,12}(\.\d{1,2})?$/, 'a decimal with at most two decimals, e.g. "12.50"');

export const paymentCriteriaSchema = z
  .object({
    statuses: z
      .array(z.enum(PAYMENT_STATUSES))
      .min(1)
      .max(3)
      .optional()
      .openapi({ example: ['CONFIRMED'] }),
    states: z.array(z.enum(PAYMENT_STATES)).min(1).max(PAYMENT_STATES.length).optional(),
    kinds: z.array(z.enum(PAYMENT_KINDS)).min(1).max(PAYMENT_KINDS.length).optional(),
    userId: z.string().min(1).max(64).optional(),
    ibanId: z.string().min(1).max(64).optional(),
    bankHash: z.string().min(1).max(64).optional(),
    hookHash: z.string().min(1).max(100).optional(),
    bulkId: z.string().min(1).max(64).optional(),
    inBulk: z
      .boolean()
      .optional()
      .openapi({ description: 'true: bulk entries only; false: single payments only' }),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'an ISO 4217 code')
      .optional(),
    creditorIban: z.string().min(1).max(64).optional(),
    amountFrom: amountFilter.optional().openapi({ description: 'At least this amount' }),
    amountTo: amountFilter.optional().openapi({ description: 'At most this amount' }),
    dateFrom: isoDay
      .optional()
      .openapi({ description: 'Created on or after this day (UTC)', example: '2026-11-01' }),
    dateTo: isoDay
      .optional()
      .openapi({ description: 'Created on or before this day (UTC)', example: '2026-11-30' }),
    updatedFrom: isoDay.optional().openapi({ description: 'Last changed on or after this day (UTC)' }),
    updatedTo: isoDay.optional().openapi({ description: 'Last changed on or before this day (UTC)' }),
  })
  .refine(datesInOrder, DATES_OUT_OF_ORDER)
  .refine((value) => !value.updatedFrom || !value.updatedTo || value.updatedFrom <= value.updatedTo, {
    message: 'must not be after updatedTo',
    path: ['updatedFrom'],
  })
  .refine(
    (value) => !value.amountFrom || !value.amountTo || minorOf(value.amountFrom) <= minorOf(value.amountTo),
    {
      message: 'must not be above amountTo',
      path: ['amountFrom'],
    },
  )
  .openapi('PaymentCriteria');
export type PaymentCriteria = z.infer<typeof paymentCriteriaSchema>;

export const PAYMENT_SORT_FIELDS = ['createdAt', 'updatedAt', 'amount', 'status'] as const;
export type PaymentSortField = (typeof PAYMENT_SORT_FIELDS)[number];

/** A payment as the agent's searches answer it: the payment's record, with its user and its bulk. */
export const agentPaymentSchema = paymentSchema
  .extend({
    userId: z.string(),
    bulkId: z.string().nullable().openapi({ description: 'The bulk it is an entry of' }),
    bulkSeq: z.number().int().nullable().openapi({ description: 'Its position in the bulk, from 0' }),
  })
  .openapi('AgentPayment');

export const toAgentPayment = (row: PaymentRow): z.infer<typeof agentPaymentSchema> => ({
  ...toPaymentRecord(row),
  userId: row.userId,
  bulkId: row.bulkId,
  bulkSeq: row.bulkSeq,
});

export const paymentPageSchema = z
  .object({
    page: z.number().int(),
    size: z.number().int(),
    total: z.number().int().openapi({ description: 'Payments matching the criteria, all pages' }),
    items: z.array(agentPaymentSchema),
  })
  .openapi('PaymentPage');

/** The conditions of `criteria` over the agent's payments (the agent's scope always first). */
export function paymentConditions(agentId: string, criteria: PaymentCriteria = {}): SQL {
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
  db: Database,
  agentId: string,
  criteria: PaymentCriteria | undefined,
  sort: { sortBy: PaymentSortField; sortDirection: 'asc' | 'desc' },
  paging: { page: number; size: number },
) {
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
