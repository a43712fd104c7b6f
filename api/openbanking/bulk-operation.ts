import { createRoute, z } from '@hono/zod-openapi';
import { type BulkRequest, openbanking } from '../../application/openbanking/index.ts';
import {
  BULK_KINDS,
  BULK_STATES,
  type BulkKind,
  MAX_BULK_ENTRIES,
} from '../../domain/openbanking/bulk-payments.ts';
import { APP_PATTERN } from '../../domain/openbanking/consents.ts';
import {
  budgetDetailsSchema,
  ibanSchema,
  paymentOrderSchema,
} from '../../domain/openbanking/payment-orders.ts';
import { errorBodySchema, errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { bankHashParam } from './bank-schemas.ts';
import { flowOriginOf } from './flow-origin.ts';
import { requireUser, USER_SECURITY } from './identity.ts';

/**
 * The four bulk operations of version 8 (`POST bulk-payments/payment`, `/request`, `/budget-payment`,
 * `/budget-request`) share everything but their body: this file holds their schemas, the one operation
 * they are made by (`bulkOperation`) and the bulk's record. The use cases:
 * application/openbanking/bulk-payments.ts. See docs/openbanking.md, "Bulk payments", and decision 0034.
 */

const entrySchema = paymentOrderSchema;
const budgetEntrySchema = paymentOrderSchema.extend(budgetDetailsSchema.shape);

const commonFields = {
  hookHash: z.string().min(1).max(100).optional().openapi({
    description: 'A hook of the user or its agent (createhook): called once when the whole bulk ends',
  }),
  app: z
    .string()
    .regex(APP_PATTERN, 'lower-case letters, digits and dashes, at most 32')
    .default('web')
    .openapi({ description: 'Your application’s name in the bank callback path', example: 'web' }),
  clientReference: z.string().trim().min(1).max(64).optional().openapi({
    description:
      'Your reference of this bulk, unique per user: a repeated request with it answers the bulk already started',
    example: 'payroll-2026-11',
  }),
};
const fromIban = {
  bankHash: bankHashParam.openapi({ param: undefined, description: 'The bank of the debtor account' }),
  debtorIban: ibanSchema,
};
const fromAccount = {
  ibanId: z.string().min(1).max(64).openapi({ description: 'An added account of the user (GET ibans)' }),
};
const payments = <T extends z.ZodType>(entry: T) =>
  z
    .array(entry)
    .min(1)
    .max(MAX_BULK_ENTRIES)
    .openapi({ description: `1–${MAX_BULK_ENTRIES} payments` });

export const BULK_BODIES = {
  payment: z.object({ ...fromIban, ...commonFields, payments: payments(entrySchema) }).openapi('BulkPayment'),
  request: z
    .object({ ...fromAccount, ...commonFields, payments: payments(entrySchema) })
    .openapi('BulkRequest'),
  'budget-payment': z
    .object({ ...fromIban, ...commonFields, payments: payments(budgetEntrySchema) })
    .openapi('BulkBudgetPayment'),
  'budget-request': z
    .object({ ...fromAccount, ...commonFields, payments: payments(budgetEntrySchema) })
    .openapi('BulkBudgetRequest'),
} as const;

export const bulkStartedSchema = z
  .object({
    bulkId: z.string().openapi({ example: 'blk_0f8fad5b…' }),
    kind: z.enum(BULK_KINDS),
    status: z.enum(BULK_STATES),
    entries: z.number().int(),
    scaRedirectUrl: z.string().nullable().openapi({
      description: 'Send the user’s browser here to authorise the whole bulk once (null once FAILED)',
    }),
    scaDeadline: z.string(),
    state: z.string().optional().openapi({
      description:
        'Appended to your hook call and redirectUrl. Only in the first answer (a repeated request does not get it again)',
    }),
    repeated: z.boolean().openapi({
      description: 'true: a repeated request (same Idempotency-Key or clientReference) answered',
    }),
    reason: z.string().nullable(),
  })
  .openapi('BulkStarted');

const bulkHeaders = z.object({
  'user-agent': z
    .string()
    .max(1000)
    .optional()
    .openapi({ description: 'The user’s browser, forwarded to the bank' }),
  'idempotency-key': z
    .string()
    .min(1)
    .max(100)
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
    .optional()
    .openapi({
      description: 'Retry with the same key: the bulk already started is answered, none is started again',
    }),
});

/** One of the four bulk operations: the same route shape and handler around its body. */
export function bulkOperation(kind: BulkKind, summary: string, description: string) {
  return defineOperation({
    versions: [8],
    route: () =>
      createRoute({
        method: 'post',
        path: `/bulk-payments/${kind}`,
        operationId: `bulk${kind.replace(/(^|-)(\w)/g, (_, __, ch: string) => ch.toUpperCase())}`,
        tags: ['Bulk payments'],
        summary,
        description:
          `${description} The answer carries the bank’s SCA page: the user authorises the whole bulk there once. ` +
          'The bank then executes every entry on its own (one rejected entry does not stop the others); the entries ' +
          'and the overall status are read with GET bulk-payments/status/{hookHash} and POST bulk-payments/search. ' +
          'A repeated request with the same `Idempotency-Key` header or `clientReference` answers the same bulk (200, ' +
          '`repeated: true`) and starts nothing; the same key with another body is 409 `idempotency_conflict`.',
        security: USER_SECURITY,
        request: { headers: bulkHeaders, body: jsonBody(BULK_BODIES[kind]) },
        responses: {
          201: { description: 'Started', content: { 'application/json': { schema: bulkStartedSchema } } },
          200: {
            description: 'A repeated request',
            content: { 'application/json': { schema: bulkStartedSchema } },
          },
          ...errorResponses,
          409: {
            description: 'The Idempotency-Key or clientReference was used for another request',
            content: { 'application/json': { schema: errorBodySchema } },
          },
          502: {
            description: 'The bank refused the bulk',
            content: { 'application/json': { schema: errorBodySchema } },
          },
          503: {
            description: 'The bank could not be reached',
            content: { 'application/json': { schema: errorBodySchema } },
          },
        },
      }),
    handler: () => async (c) => {
      const user = await requireUser(c);
      const headers = c.req.valid('header');
      const { status, answer } = await openbanking.startBulk(c.get('deps'), {
        user,
        kind,
        request: c.req.valid('json') as BulkRequest,
        idempotencyKey: headers['idempotency-key'],
        origin: flowOriginOf(c, headers['user-agent']),
      });
      return status === 201 ? c.json(answer, 201) : c.json(answer, 200);
    },
  });
}

// ─── The bulk's record (status by hook, search) ─────────────────────────────────────────────────

export const bulkRecordSchema = z
  .object({
    bulkId: z.string(),
    kind: z.enum(BULK_KINDS),
    status: z.enum(BULK_STATES).openapi({
      description:
        'AWAITING_SCA, PROCESSING, then CONFIRMED (every entry), PARTIALLY_CONFIRMED (some) or FAILED (none)',
    }),
    userId: z.string(),
    bankHash: z.string(),
    ibanId: z.string().nullable(),
    debtorIban: z.string(),
    hookHash: z.string().nullable(),
    clientReference: z.string().nullable(),
    entries: z.number().int(),
    confirmed: z.number().int(),
    failed: z.number().int(),
    waiting: z.number().int(),
    bankStatus: z.string().nullable().openapi({ description: 'The bank’s transactionStatus of the bulk' }),
    reason: z.string().nullable(),
    createdAt: z.string(),
    statusChangedAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .openapi('BulkPaymentRecord');
