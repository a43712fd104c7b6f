import { createHash, randomBytes } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { and, count, eq, inArray, isNull, or } from 'drizzle-orm';
import type { Context } from 'hono';
import { Refusal } from '../../application/shared/refusal.ts';
import { digestOf, type UserIdentity } from '../../credentials/openbanking/identity.ts';
import type { Database } from '../../db/client.ts';
import { obAccounts, obHooks } from '../../db/schema/openbanking.ts';
import { obBulkPayments } from '../../db/schema/openbanking-bulk-payments.ts';
import { obPayments } from '../../db/schema/openbanking-payments.ts';
import {
  BULK_KINDS,
  BULK_STATES,
  type BulkKind,
  MAX_BULK_ENTRIES,
} from '../../domain/openbanking/bulk-payments.ts';
import { APP_PATTERN, STATE_PATTERN } from '../../domain/openbanking/consents.ts';
import { newId } from '../../domain/openbanking/ids.ts';
import {
  budgetDetailsSchema,
  ibanSchema,
  minorOf,
  type PaymentKind,
  paymentOrderSchema,
} from '../../domain/openbanking/payments.ts';
import {
  type BulkPaymentInput,
  type BulkScaStart,
  BulkStartRefusal,
  bulkCallbackSignal,
  bulkPaymentWorkflowId,
  bulkStartedUpdate,
  openBankingSearchAttributes,
} from '../../domain/openbanking/processes.ts';
import type { PaymentProduct } from '../../domain/openbanking/xs2a.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';
import type { bulkPayment } from '../../workflows/openbanking/index.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorBodySchema, errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { bankHashParam, findBank } from './bank-records.ts';
import { psuOf } from './consent.ts';
import { findUsableHook } from './hook-records.ts';
import { requireUser, USER_SECURITY } from './identity.ts';
import { publicBaseUrl } from './public-url.ts';

/**
 * The four bulk operations of version 8 (`POST bulk-payments/payment`, `/request`, `/budget-payment`,
 * `/budget-request`) share everything but their body: this file holds their schemas, the one way a
 * bulk is started (`bulkOperation`), the bulk's record, and the bank callback of a bulk's SCA. See
 * docs/openbanking.md, "Bulk payments", and decision 0034.
 */

/** The kind of each single payment an entry of a bulk kind is (ob_payments.kind). */
const ENTRY_KIND: Record<BulkKind, PaymentKind> = {
  payment: 'direct',
  request: 'iban',
  'budget-payment': 'budget_no_iban',
  'budget-request': 'budget',
};

/** SEPA credit transfers when every entry is in euro, else the bank's domestic transfers. */
const productOf = (currencies: Iterable<string>): PaymentProduct =>
  [...currencies].every((currency) => currency === 'EUR')
    ? 'sepa-credit-transfers'
    : 'domestic-credit-transfers';

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

type BulkBody = z.infer<(typeof BULK_BODIES)[BulkKind]>;
type BulkEntry = z.infer<typeof budgetEntrySchema> | z.infer<typeof entrySchema>;

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
type BulkStarted = z.infer<typeof bulkStartedSchema>;

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
      const { status, answer } = await startBulk(c, user, kind, c.req.valid('json') as BulkBody, headers);
      return status === 201 ? c.json(answer, 201) : c.json(answer, 200);
    },
  });
}

const digestOfRequest = (kind: BulkKind, body: BulkBody) =>
  createHash('sha256').update(JSON.stringify({ kind, body })).digest('hex');

type BulkRow = typeof obBulkPayments.$inferSelect;

const answerOf = (row: BulkRow, repeated: boolean, state?: string): BulkStarted => ({
  bulkId: row.id,
  kind: row.kind,
  status: row.status,
  entries: row.entryCount,
  scaRedirectUrl: row.status === 'FAILED' ? null : row.scaRedirectUrl,
  scaDeadline: row.scaDeadline.toISOString(),
  ...(state ? { state } : {}),
  repeated,
  reason: row.reason,
});

/** The bulk an earlier request of the user started with this key or reference, if any. */
async function earlierBulk(
  db: Database,
  userId: string,
  key: string | undefined,
  reference: string | undefined,
) {
  if (!key && !reference) return undefined;
  const [row] = await db
    .select()
    .from(obBulkPayments)
    .where(
      and(
        eq(obBulkPayments.userId, userId),
        or(
          key ? eq(obBulkPayments.idempotencyKey, key) : undefined,
          reference ? eq(obBulkPayments.clientReference, reference) : undefined,
        ),
      ),
    )
    .limit(1);
  return row;
}

/**
 * Starts a bulk for `user`, or answers the one a repeated request started: checks the request, records
 * the bulk and its entries (inserted a thousand at a time), and runs the Update-with-start that answers
 * once the bank bulk exists.
 */
async function startBulk(
  c: Context<AppEnv>,
  user: UserIdentity,
  kind: BulkKind,
  body: BulkBody,
  headers: { 'user-agent'?: string | undefined; 'idempotency-key'?: string | undefined },
): Promise<{ status: 200 | 201; answer: BulkStarted }> {
  const { db, config } = c.get('deps');
  const key = headers['idempotency-key'];
  const requestDigest = digestOfRequest(kind, body);
  const repeat = async (row: BulkRow) => {
    if (row.kind !== kind || row.requestDigest !== requestDigest)
      throw new Refusal(
        409,
        'idempotency_conflict',
        'This Idempotency-Key or clientReference was used for another request',
        [
          {
            field: key && row.idempotencyKey === key ? 'Idempotency-Key' : 'clientReference',
            message: 'already used',
          },
        ],
      );
    return { status: 200 as const, answer: answerOf(await resumeBulk(c, row), true) };
  };
  const earlier = await earlierBulk(db, user.userId, key, body.clientReference);
  if (earlier) return repeat(earlier);

  // The debtor: an added account of the user, or a bank and IBAN the user names.
  let debtor: { bankHash: string; iban: string; ibanId: string | null };
  if ('ibanId' in body) {
    const [account] = await db
      .select()
      .from(obAccounts)
      .where(
        and(eq(obAccounts.id, body.ibanId), eq(obAccounts.userId, user.userId), isNull(obAccounts.deletedAt)),
      )
      .limit(1);
    if (!account) throw Refusal.notFound('Account');
    debtor = { bankHash: account.bankHash, iban: account.iban, ibanId: account.id };
  } else {
    const { row: bank } = await findBank(db, body.bankHash);
    debtor = { bankHash: bank.bankHash, iban: body.debtorIban, ibanId: null };
  }
  if (body.hookHash && !(await findUsableHook(db, user, body.hookHash)))
    throw Refusal.field('hookHash', 'not a hook of this user or its agent');

  const psu = psuOf(c, headers['user-agent']);
  const bulkId = newId('blk');
  const state = randomBytes(32).toString('base64url');
  const scaDeadline = new Date(Date.now() + config.OPENBANKING_SCA_TIMEOUT);
  const entries = body.payments as BulkEntry[];
  const inserted = await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(obBulkPayments)
      .values({
        id: bulkId,
        agentId: user.agentId,
        userId: user.userId,
        kind,
        bankHash: debtor.bankHash,
        ibanId: debtor.ibanId,
        debtorIban: debtor.iban,
        product: productOf(new Set(entries.map((entry) => entry.currency))),
        hookHash: body.hookHash ?? null,
        app: body.app,
        stateDigest: digestOf(state),
        idempotencyKey: key ?? null,
        clientReference: body.clientReference ?? null,
        requestDigest,
        status: 'AWAITING_SCA',
        entryCount: entries.length,
        scaDeadline,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) return undefined;
    for (let from = 0; from < entries.length; from += 1000) {
      await tx.insert(obPayments).values(
        entries.slice(from, from + 1000).map((entry, offset) => {
          const budget = 'paymentCategory' in entry ? entry : undefined;
          const { regulatoryReportType, paymentCategory, ...budgetDetails } = budget
            ? budgetDetailsSchema.parse(budget)
            : { regulatoryReportType: null, paymentCategory: null };
          return {
            code: newId('pay'),
            agentId: user.agentId,
            userId: user.userId,
            kind: ENTRY_KIND[kind],
            ibanId: debtor.ibanId,
            debtorIban: debtor.iban,
            bankHash: debtor.bankHash,
            creditorIban: entry.creditorIban,
            creditorName: entry.creditorName,
            amountMinor: minorOf(entry.amount),
            currency: entry.currency,
            remittanceInformation: entry.remittanceInformation ?? null,
            regulatoryReportType,
            paymentCategory,
            budgetDetails:
              budget && Object.keys(budgetDetails).length > 0
                ? (budgetDetails as Record<string, string>)
                : null,
            hookHash: body.hookHash ?? null,
            app: body.app,
            stateDigest: null,
            status: 'WAITING' as const,
            state: 'CREATED' as const,
            psuUserAgent: psu?.userAgent ?? null,
            psuIpAddress: psu?.ipAddress ?? null,
            bulkId,
            bulkSeq: from + offset,
          };
        }),
      );
    }
    return row;
  });
  if (!inserted) {
    // The same key or reference won a race with this request: answer that bulk.
    const winner = await earlierBulk(db, user.userId, key, body.clientReference);
    if (!winner) throw new Refusal(409, 'idempotency_conflict', 'A concurrent request holds this key; retry');
    return repeat(winner);
  }

  const base = publicBaseUrl(c);
  const callbackUrl = `${base}/openbanking/redirect/${body.app}/state/${state}`;
  const input: BulkPaymentInput = {
    bulkId,
    state,
    redirectUri: callbackUrl,
    nokRedirectUri: `${callbackUrl}?outcome=nok`,
    ...(psu ? { psu } : {}),
    scaDeadline: scaDeadline.toISOString(),
    bankRequestTimeoutMs: config.OPENBANKING_BANK_REQUEST_TIMEOUT,
    entryCount: entries.length,
    batchSize: config.OPENBANKING_BULK_BATCH_SIZE,
    pollIntervalMs: config.OPENBANKING_BULK_POLL_INTERVAL,
  };
  await startWorkflow(c, inserted, input);
  const [row] = await db.select().from(obBulkPayments).where(eq(obBulkPayments.id, bulkId));
  return { status: 201, answer: answerOf(row!, false, state) };
}

/** Update-with-start of the bulk's workflow; a refusal of the bank becomes 502/503. */
async function startWorkflow(
  c: Context<AppEnv>,
  row: BulkRow,
  input: BulkPaymentInput,
): Promise<BulkScaStart> {
  const { config, temporal } = c.get('deps');
  try {
    return await temporal.workflow.executeUpdateWithStart(bulkStartedUpdate, {
      startWorkflowOperation: new WithStartWorkflowOperation<typeof bulkPayment>('bulkPayment', {
        workflowId: bulkPaymentWorkflowId(row.id),
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        // A bulk's workflow runs once: a repeated request attaches to it, never starts a second one.
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [input],
        typedSearchAttributes: [
          ...openBankingSearchAttributes({
            agentId: row.agentId,
            userId: row.userId,
            bankHash: row.bankHash,
          }),
          { key: BusinessStatus, value: 'AWAITING_SCA' },
        ],
        staticSummary: `Bulk ${row.id} (${row.kind}, ${row.entryCount} entries) of user ${row.userId}`,
      }),
    });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      if (error.cause.type === BulkStartRefusal.bankRefused)
        throw new Refusal(502, 'bank_refused', `The bank refused the bulk: ${error.cause.message}`);
      if (error.cause.type === BulkStartRefusal.bankUnavailable)
        throw new Refusal(503, 'bank_unavailable', 'The bank could not be reached; try again later');
    }
    throw error;
  }
}

/**
 * A repeated request: the bulk as it stands. When the first request's answer never came (the bulk is
 * still being created at the bank, or the API stopped before its workflow started), it waits for the
 * bank's SCA page, starting the workflow only if it does not exist (with a new callback state, as the
 * first one was never handed out).
 */
/** A bulk recorded this long ago without a workflow lost its first request (the API stopped in between). */
const ORPHAN_AFTER_MS = 60_000;

async function resumeBulk(c: Context<AppEnv>, row: BulkRow): Promise<BulkRow> {
  if (row.status !== 'AWAITING_SCA' || row.scaRedirectUrl || row.finishedAt) return row;
  const { db, config, temporal } = c.get('deps');
  try {
    await temporal.workflow.getHandle(bulkPaymentWorkflowId(row.id)).executeUpdate(bulkStartedUpdate);
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) return reread(db, row.id);
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    // The first request may still be about to start it (with the state it answers): leave it that chance.
    if (Date.now() - row.createdAt.getTime() < ORPHAN_AFTER_MS) return row;
    const state = randomBytes(32).toString('base64url');
    await db
      .update(obBulkPayments)
      .set({ stateDigest: digestOf(state) })
      .where(eq(obBulkPayments.id, row.id));
    const callbackUrl = `${publicBaseUrl(c)}/openbanking/redirect/${row.app}/state/${state}`;
    const psu = psuOf(c, c.req.header('user-agent'));
    try {
      await startWorkflow(c, row, {
        bulkId: row.id,
        state,
        redirectUri: callbackUrl,
        nokRedirectUri: `${callbackUrl}?outcome=nok`,
        ...(psu ? { psu } : {}),
        scaDeadline: row.scaDeadline.toISOString(),
        bankRequestTimeoutMs: config.OPENBANKING_BANK_REQUEST_TIMEOUT,
        entryCount: row.entryCount,
        batchSize: config.OPENBANKING_BULK_BATCH_SIZE,
        pollIntervalMs: config.OPENBANKING_BULK_POLL_INTERVAL,
      });
    } catch (startError) {
      if (!(startError instanceof WorkflowExecutionAlreadyStartedError) && !(startError instanceof Refusal))
        throw startError;
    }
  }
  return reread(db, row.id);
}

async function reread(db: Database, bulkId: string): Promise<BulkRow> {
  const [row] = await db.select().from(obBulkPayments).where(eq(obBulkPayments.id, bulkId));
  return row!;
}

/**
 * The bank's callback of a bulk's SCA (`/redirect/{app}/state/{state}`, when no consent or payment has
 * that state): signals the bulk's workflow, and answers the hook's redirectUrl (or null). Undefined when
 * no bulk has that state.
 */
export async function bulkBankCallback(
  c: Context<AppEnv>,
  app: string,
  state: string,
): Promise<{ redirectUrl: string | null } | undefined> {
  if (!STATE_PATTERN.test(state) || !APP_PATTERN.test(app)) return undefined;
  const { db, temporal, logger } = c.get('deps');
  const [row] = await db
    .select({ bulk: obBulkPayments, redirectUrl: obHooks.redirectUrl })
    .from(obBulkPayments)
    .leftJoin(obHooks, eq(obHooks.hookHash, obBulkPayments.hookHash))
    .where(and(eq(obBulkPayments.stateDigest, digestOf(state)), eq(obBulkPayments.app, app)))
    .limit(1);
  if (!row) return undefined;
  await db
    .update(obBulkPayments)
    .set({ callbackAt: new Date() })
    .where(and(eq(obBulkPayments.id, row.bulk.id), isNull(obBulkPayments.callbackAt)));
  try {
    await temporal.workflow
      .getHandle(bulkPaymentWorkflowId(row.bulk.id))
      .signal(bulkCallbackSignal, { nok: c.req.query('outcome') === 'nok' });
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    logger.info({ bulkId: row.bulk.id }, 'bank callback after the bulk ended');
  }
  return { redirectUrl: row.redirectUrl };
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
export type BulkRecord = z.infer<typeof bulkRecordSchema>;

/** The entries of each bulk by status, counted now (a bulk in progress moves batch by batch). */
export async function entryCountsOf(db: Database, bulkIds: string[]) {
  const counts = new Map<string, { confirmed: number; failed: number; waiting: number }>();
  if (bulkIds.length === 0) return counts;
  const rows = await db
    .select({ bulkId: obPayments.bulkId, status: obPayments.status, value: count() })
    .from(obPayments)
    .where(inArray(obPayments.bulkId, bulkIds))
    .groupBy(obPayments.bulkId, obPayments.status);
  for (const row of rows) {
    const entry = counts.get(row.bulkId!) ?? { confirmed: 0, failed: 0, waiting: 0 };
    if (row.status === 'CONFIRMED') entry.confirmed = row.value;
    else if (row.status === 'FAILED') entry.failed = row.value;
    else entry.waiting = row.value;
    counts.set(row.bulkId!, entry);
  }
  return counts;
}

export const toBulkRecord = (
  row: BulkRow,
  counts: { confirmed: number; failed: number; waiting: number } | undefined,
): BulkRecord => ({
  bulkId: row.id,
  kind: row.kind,
  status: row.status,
  userId: row.userId,
  bankHash: row.bankHash,
  ibanId: row.ibanId,
  debtorIban: row.debtorIban,
  hookHash: row.hookHash,
  clientReference: row.clientReference,
  entries: row.entryCount,
  confirmed: counts?.confirmed ?? 0,
  failed: counts?.failed ?? 0,
  waiting: counts?.waiting ?? row.entryCount,
  bankStatus: row.bankStatus,
  reason: row.reason,
  createdAt: row.createdAt.toISOString(),
  statusChangedAt: row.statusChangedAt.toISOString(),
  finishedAt: row.finishedAt?.toISOString() ?? null,
});
