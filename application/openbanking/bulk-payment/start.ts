import { createHash, randomBytes } from 'node:crypto';
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { and, eq, isNull, or } from 'drizzle-orm';
import type { z } from 'zod';
import { digestOf, type UserIdentity } from '../../../credentials/openbanking/identity.ts';
import type { Database } from '../../../db/client.ts';
import { obAccounts } from '../../../db/schema/openbanking.ts';
import { obBulkPayments } from '../../../db/schema/openbanking-bulk-payments.ts';
import { obPayments } from '../../../db/schema/openbanking-payments.ts';
import type { BulkKind, BulkState } from '../../../domain/openbanking/bulk-payments.ts';
import { newId } from '../../../domain/openbanking/ids.ts';
import {
  type BudgetDetails,
  budgetDetailsSchema,
  type paymentOrderSchema,
} from '../../../domain/openbanking/payment-orders.ts';
import { minorOf, type PaymentKind } from '../../../domain/openbanking/payments.ts';
import {
  type BulkPaymentInput,
  type BulkScaStart,
  BulkStartRefusal,
  bulkPaymentWorkflowId,
  bulkStartedUpdate,
  openBankingSearchAttributes,
} from '../../../domain/openbanking/processes.ts';
import type { PaymentProduct, PsuPresence } from '../../../domain/openbanking/xs2a.ts';
import { BusinessStatus } from '../../../domain/search-attributes.ts';
import type { bulkPayment } from '../../../workflows/openbanking/index.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';
import { Refusal } from '../../shared/refusal.ts';
import { findBankRow } from '../banks.ts';
import { findUsableHook } from '../hooks.ts';
import { callbackUrlsOf, type FlowOrigin, psuOf } from '../psu.ts';

/**
 * Bulk payments of version 8 (decision 0034): starting one (its record and entries, then the
 * Update-with-start of `ob-bulk-<bulkId>` that answers once the bank bulk exists), repeated requests
 * (Idempotency-Key, clientReference), the bank's callback of a bulk's SCA, and the agent's reads.
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

type OrderEntry = z.infer<typeof paymentOrderSchema>;
export type BulkEntry = OrderEntry | (OrderEntry & BudgetDetails);

/** A bulk request as the four bulk operations validated it: from an added account, or from an IBAN. */
export type BulkRequest = {
  hookHash?: string | undefined;
  app: string;
  clientReference?: string | undefined;
  payments: BulkEntry[];
} & ({ ibanId: string } | { bankHash: string; debtorIban: string });

export interface BulkStarted {
  bulkId: string;
  kind: BulkKind;
  status: BulkState;
  entries: number;
  scaRedirectUrl: string | null;
  scaDeadline: string;
  state?: string;
  repeated: boolean;
  reason: string | null;
}

const digestOfRequest = (kind: BulkKind, body: BulkRequest) =>
  createHash('sha256').update(JSON.stringify({ kind, body })).digest('hex');

export type BulkRow = typeof obBulkPayments.$inferSelect;

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

type Debtor = { bankHash: string; iban: string; ibanId: string | null };

/** The debtor: an added account of the user, or a bank and IBAN the user names; the hook must be usable. */
async function debtorOf(db: Database, user: UserIdentity, body: BulkRequest): Promise<Debtor> {
  let debtor: Debtor;
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
    const bank = await findBankRow(db, body.bankHash);
    debtor = { bankHash: bank.bankHash, iban: body.debtorIban, ibanId: null };
  }
  if (body.hookHash && !(await findUsableHook(db, user, body.hookHash)))
    throw Refusal.field('hookHash', 'not a hook of this user or its agent');
  return debtor;
}

/** What a new bulk is recorded with besides its request. */
interface NewBulk {
  bulkId: string;
  user: UserIdentity;
  kind: BulkKind;
  debtor: Debtor;
  stateDigest: string;
  idempotencyKey: string | undefined;
  requestDigest: string;
  scaDeadline: Date;
  psu: PsuPresence | undefined;
}

/** The ob_payments row of each entry of a bulk, numbered from `from`. */
const entryRowsOf = (bulk: NewBulk, body: BulkRequest, from: number, entries: BulkEntry[]) =>
  entries.map((entry, offset) => {
    const budget = 'paymentCategory' in entry ? entry : undefined;
    const { regulatoryReportType, paymentCategory, ...budgetDetails } = budget
      ? budgetDetailsSchema.parse(budget)
      : { regulatoryReportType: null, paymentCategory: null };
    const { user, debtor, psu } = bulk;
    return {
      code: newId('pay'),
      agentId: user.agentId,
      userId: user.userId,
      kind: ENTRY_KIND[bulk.kind],
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
        budget && Object.keys(budgetDetails).length > 0 ? (budgetDetails as Record<string, string>) : null,
      hookHash: body.hookHash ?? null,
      app: body.app,
      stateDigest: null,
      status: 'WAITING' as const,
      state: 'CREATED' as const,
      psuUserAgent: psu?.userAgent ?? null,
      psuIpAddress: psu?.ipAddress ?? null,
      bulkId: bulk.bulkId,
      bulkSeq: from + offset,
    };
  });

/**
 * Records the bulk and its entries (inserted a thousand at a time) in one transaction; undefined when
 * the same key or reference was recorded meanwhile.
 */
async function recordBulk(db: Database, bulk: NewBulk, body: BulkRequest): Promise<BulkRow | undefined> {
  const entries = body.payments;
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(obBulkPayments)
      .values({
        id: bulk.bulkId,
        agentId: bulk.user.agentId,
        userId: bulk.user.userId,
        kind: bulk.kind,
        bankHash: bulk.debtor.bankHash,
        ibanId: bulk.debtor.ibanId,
        debtorIban: bulk.debtor.iban,
        product: productOf(new Set(entries.map((entry) => entry.currency))),
        hookHash: body.hookHash ?? null,
        app: body.app,
        stateDigest: bulk.stateDigest,
        idempotencyKey: bulk.idempotencyKey ?? null,
        clientReference: body.clientReference ?? null,
        requestDigest: bulk.requestDigest,
        status: 'AWAITING_SCA',
        entryCount: entries.length,
        scaDeadline: bulk.scaDeadline,
      })
      .onConflictDoNothing()
      .returning();
    if (!row) return undefined;
    for (let from = 0; from < entries.length; from += 1000) {
      await tx.insert(obPayments).values(entryRowsOf(bulk, body, from, entries.slice(from, from + 1000)));
    }
    return row;
  });
}

/**
 * Starts a bulk for `user`, or answers the one a repeated request started (`status` 200): checks the
 * request, records the bulk and its entries, and runs the Update-with-start that answers once the bank
 * bulk exists.
 */
export async function startBulk(
  deps: UseCaseDeps,
  {
    user,
    kind,
    request: body,
    idempotencyKey: key,
    origin,
  }: {
    user: UserIdentity;
    kind: BulkKind;
    request: BulkRequest;
    idempotencyKey: string | undefined;
    origin: FlowOrigin;
  },
): Promise<{ status: 200 | 201; answer: BulkStarted }> {
  const { db, config } = deps;
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
    return { status: 200 as const, answer: answerOf(await resumeBulk(deps, row, origin), true) };
  };
  const earlier = await earlierBulk(db, user.userId, key, body.clientReference);
  if (earlier) return repeat(earlier);

  const debtor = await debtorOf(db, user, body);
  const psu = psuOf(origin.psu);
  const bulkId = newId('blk');
  const state = randomBytes(32).toString('base64url');
  const scaDeadline = new Date(Date.now() + config.OPENBANKING_SCA_TIMEOUT);
  const bulk: NewBulk = {
    bulkId,
    user,
    kind,
    debtor,
    stateDigest: digestOf(state),
    idempotencyKey: key,
    requestDigest,
    scaDeadline,
    psu,
  };
  const inserted = await recordBulk(db, bulk, body);
  if (!inserted) {
    // The same key or reference won a race with this request: answer that bulk.
    const winner = await earlierBulk(db, user.userId, key, body.clientReference);
    if (!winner) throw new Refusal(409, 'idempotency_conflict', 'A concurrent request holds this key; retry');
    return repeat(winner);
  }

  const input: BulkPaymentInput = {
    bulkId,
    state,
    ...callbackUrlsOf(origin.baseUrl, body.app, state),
    ...(psu ? { psu } : {}),
    scaDeadline: scaDeadline.toISOString(),
    bankRequestTimeoutMs: config.OPENBANKING_BANK_REQUEST_TIMEOUT,
    entryCount: body.payments.length,
    batchSize: config.OPENBANKING_BULK_BATCH_SIZE,
    pollIntervalMs: config.OPENBANKING_BULK_POLL_INTERVAL,
  };
  await startWorkflow(deps, inserted, input);
  return { status: 201, answer: answerOf(await reread(db, bulkId), false, state) };
}

/** Update-with-start of the bulk's workflow; a refusal of the bank becomes 502/503. */
async function startWorkflow(
  deps: UseCaseDeps,
  row: BulkRow,
  input: BulkPaymentInput,
): Promise<BulkScaStart> {
  const { config, temporal } = deps;
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

/** A bulk recorded this long ago without a workflow lost its first request (the API stopped in between). */
const ORPHAN_AFTER_MS = 60_000;

/**
 * A repeated request: the bulk as it stands. When the first request's answer never came (the bulk is
 * still being created at the bank, or the API stopped before its workflow started), it waits for the
 * bank's SCA page, starting the workflow only if it does not exist (with a new callback state, as the
 * first one was never handed out).
 */
async function resumeBulk(deps: UseCaseDeps, row: BulkRow, origin: FlowOrigin): Promise<BulkRow> {
  if (row.status !== 'AWAITING_SCA' || row.scaRedirectUrl || row.finishedAt) return row;
  const { db, config, temporal } = deps;
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
    const psu = psuOf(origin.psu);
    try {
      await startWorkflow(deps, row, {
        bulkId: row.id,
        state,
        ...callbackUrlsOf(origin.baseUrl, row.app, state),
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
