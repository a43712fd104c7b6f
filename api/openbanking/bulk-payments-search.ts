import { createRoute, z } from '@hono/zod-openapi';
import { and, asc, count, desc, eq, gte, inArray, lt, type SQL } from 'drizzle-orm';
import { obBulkPayments } from '../../db/schema/openbanking-bulk-payments.ts';
import { obPayments } from '../../db/schema/openbanking-payments.ts';
import { BULK_KINDS, BULK_STATES } from '../../domain/openbanking/bulk-payments.ts';
import { PAYMENT_STATUSES } from '../../domain/openbanking/payments.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { bulkRecordSchema, entryCountsOf, toBulkRecord } from './bulk-payment-records.ts';
import { AGENT_SECURITY, requireAgent } from './identity.ts';
import {
  agentPaymentSchema,
  DATES_OUT_OF_ORDER,
  datesInOrder,
  dayRange,
  isoDay,
  pagingFields,
  toAgentPayment,
} from './payment-search.ts';

/**
 * `POST /api/8/bulk-payments/search`: the agent's bulks matching the criteria, sorted and paged, each
 * with (a window of) its entries. The spec lists no credential; an agent's bulks are never readable
 * without its credential, so x-agent-hash is required (decision 0034).
 */

const MAX_ENTRIES = 1000;
const SORT_FIELDS = ['createdAt', 'statusChangedAt', 'entries'] as const;

const body = z
  .object({
    criteria: z
      .object({
        statuses: z.array(z.enum(BULK_STATES)).min(1).max(BULK_STATES.length).optional(),
        kinds: z.array(z.enum(BULK_KINDS)).min(1).max(BULK_KINDS.length).optional(),
        bulkId: z.string().min(1).max(64).optional(),
        userId: z.string().min(1).max(64).optional(),
        bankHash: z.string().min(1).max(64).optional(),
        hookHash: z.string().min(1).max(100).optional(),
        clientReference: z.string().min(1).max(64).optional(),
        dateFrom: isoDay.optional().openapi({ description: 'Created on or after this day (UTC)' }),
        dateTo: isoDay.optional().openapi({ description: 'Created on or before this day (UTC)' }),
      })
      .refine(datesInOrder, DATES_OUT_OF_ORDER)
      .optional(),
    sortBy: z.enum(SORT_FIELDS).default('createdAt'),
    sortDirection: z.enum(['asc', 'desc']).default('desc'),
    ...pagingFields,
    entryStatuses: z
      .array(z.enum(PAYMENT_STATUSES))
      .min(1)
      .max(3)
      .optional()
      .openapi({ description: 'Only entries in these statuses (e.g. ["FAILED"] for what to pay again)' }),
    entriesOffset: z.number().int().min(0).default(0).openapi({ description: 'Entries from this position' }),
    entriesLimit: z
      .number()
      .int()
      .min(0)
      .max(MAX_ENTRIES)
      .default(100)
      .openapi({ description: `Entries per bulk, 0-${MAX_ENTRIES} (in request order)` }),
  })
  .openapi('BulkPaymentSearch');

const answerSchema = z
  .object({
    page: z.number().int(),
    size: z.number().int(),
    total: z.number().int(),
    items: z.array(bulkRecordSchema.extend({ payments: z.array(agentPaymentSchema) })),
  })
  .openapi('BulkPaymentPage');

const SORT_COLUMNS = {
  createdAt: obBulkPayments.createdAt,
  statusChangedAt: obBulkPayments.statusChangedAt,
  entries: obBulkPayments.entryCount,
} as const;

export const bulkPaymentsSearchOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'post',
      path: '/bulk-payments/search',
      operationId: 'searchBulkPayments',
      tags: ['Bulk payments'],
      summary: 'Bulk payments with their entries',
      description:
        'The agent’s bulks filtered by `criteria` (statuses, kinds, bulk, user, bank, hook, clientReference, ' +
        'creation days), sorted by `sortBy` (ties by id) and paged; each with its entries in request order, ' +
        '`entriesLimit` of them from `entriesOffset`, optionally only those in `entryStatuses`. Requires ' +
        'x-agent-hash: the spec lists none, and an agent’s payments are never readable without its credential.',
      security: AGENT_SECURITY,
      request: { body: jsonBody(body) },
      responses: {
        200: { description: 'A page of bulks', content: { 'application/json': { schema: answerSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { agentId } = await requireAgent(c);
    const input = c.req.valid('json');
    const { db } = c.get('deps');
    const criteria = input.criteria ?? {};
    const conditions: (SQL | undefined)[] = [eq(obBulkPayments.agentId, agentId)];
    if (criteria.statuses) conditions.push(inArray(obBulkPayments.status, criteria.statuses));
    if (criteria.kinds) conditions.push(inArray(obBulkPayments.kind, criteria.kinds));
    if (criteria.bulkId) conditions.push(eq(obBulkPayments.id, criteria.bulkId));
    if (criteria.userId) conditions.push(eq(obBulkPayments.userId, criteria.userId));
    if (criteria.bankHash) conditions.push(eq(obBulkPayments.bankHash, criteria.bankHash));
    if (criteria.hookHash) conditions.push(eq(obBulkPayments.hookHash, criteria.hookHash));
    if (criteria.clientReference)
      conditions.push(eq(obBulkPayments.clientReference, criteria.clientReference));
    if (criteria.dateFrom)
      conditions.push(gte(obBulkPayments.createdAt, dayRange(criteria.dateFrom, criteria.dateFrom).from));
    if (criteria.dateTo)
      conditions.push(lt(obBulkPayments.createdAt, dayRange(criteria.dateTo, criteria.dateTo).to));
    const where = and(...conditions);
    const order = input.sortDirection === 'asc' ? asc : desc;
    const [rows, [total]] = await Promise.all([
      db
        .select()
        .from(obBulkPayments)
        .where(where)
        .orderBy(order(SORT_COLUMNS[input.sortBy]), order(obBulkPayments.id))
        .limit(input.size)
        .offset((input.page - 1) * input.size),
      db.select({ value: count() }).from(obBulkPayments).where(where),
    ]);
    const counts = await entryCountsOf(
      db,
      rows.map((row) => row.id),
    );
    const items = await Promise.all(
      rows.map(async (row) => {
        const entries =
          input.entriesLimit === 0
            ? []
            : await db
                .select()
                .from(obPayments)
                .where(
                  and(
                    eq(obPayments.bulkId, row.id),
                    eq(obPayments.agentId, agentId),
                    gte(obPayments.bulkSeq, input.entriesOffset),
                    input.entryStatuses ? inArray(obPayments.status, input.entryStatuses) : undefined,
                  ),
                )
                .orderBy(asc(obPayments.bulkSeq))
                .limit(input.entriesLimit);
        return { ...toBulkRecord(row, counts.get(row.id)), payments: entries.map(toAgentPayment) };
      }),
    );
    return c.json({ page: input.page, size: input.size, total: total?.value ?? 0, items }, 200);
  },
});
