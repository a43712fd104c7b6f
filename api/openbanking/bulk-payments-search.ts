import { createRoute, z } from '@hono/zod-openapi';
import { BULK_SORT_FIELDS, openbanking } from '../../application/openbanking/index.ts';
import { BULK_KINDS, BULK_STATES } from '../../domain/openbanking/bulk-payments.ts';
import { PAYMENT_STATUSES } from '../../domain/openbanking/payments.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { bulkRecordSchema } from './bulk-operation.ts';
import { AGENT_SECURITY, requireAgent } from './identity.ts';
import {
  agentPaymentSchema,
  DATES_OUT_OF_ORDER,
  datesInOrder,
  isoDay,
  pagingFields,
} from './payment-search.ts';

/**
 * `POST /api/8/bulk-payments/search`: the agent's bulks matching the criteria, sorted and paged, each
 * with (a window of) its entries. The spec lists no credential; an agent's bulks are never readable
 * without its credential, so x-agent-hash is required (decision 0034).
 */

const MAX_ENTRIES = 1000;

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
    sortBy: z.enum(BULK_SORT_FIELDS).default('createdAt'),
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
    return c.json(await openbanking.searchBulks(c.get('deps'), { agentId, ...c.req.valid('json') }), 200);
  },
});
