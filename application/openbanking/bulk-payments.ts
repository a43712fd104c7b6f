import { createHash, randomBytes } from 'node:crypto';
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { and, asc, count, desc, eq, gte, inArray, isNull, lt, or, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import { digestOf, type UserIdentity } from '../../credentials/openbanking/identity.ts';
import type { Database } from '../../db/client.ts';
import { obAccounts, obHooks } from '../../db/schema/openbanking.ts';
import { obBulkPayments } from '../../db/schema/openbanking-bulk-payments.ts';
import { obPayments } from '../../db/schema/openbanking-payments.ts';
import type { BulkKind, BulkState } from '../../domain/openbanking/bulk-payments.ts';
import { APP_PATTERN, STATE_PATTERN } from '../../domain/openbanking/consents.ts';
import { newId } from '../../domain/openbanking/ids.ts';
import {
  type BudgetDetails,
  budgetDetailsSchema,
  type paymentOrderSchema,
} from '../../domain/openbanking/payment-orders.ts';
import { minorOf, type PaymentKind, type PaymentStatus } from '../../domain/openbanking/payments.ts';
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
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { findBankRow } from './banks.ts';
import { findUsableHook, requireAgentHook } from './hooks.ts';
import { type AgentPaymentView, dayRange, toAgentPayment } from './payment-searches.ts';
import { callbackUrlsOf, type FlowOrigin, psuOf } from './psu.ts';

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
 * Starts a bulk for `user`, or answers the one a repeated request started (`status` 200): checks the
 * request, records the bulk and its entries (inserted a thousand at a time), and runs the
 * Update-with-start that answers once the bank bulk exists.
 */
export async function startBulk(
  deps: UseCaseDeps,
  user: UserIdentity,
  kind: BulkKind,
  body: BulkRequest,
  request: { idempotencyKey: string | undefined },
  origin: FlowOrigin,
): Promise<{ status: 200 | 201; answer: BulkStarted }> {
  const { db, config } = deps;
  const key = request.idempotencyKey;
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
    const bank = await findBankRow(db, body.bankHash);
    debtor = { bankHash: bank.bankHash, iban: body.debtorIban, ibanId: null };
  }
  if (body.hookHash && !(await findUsableHook(db, user, body.hookHash)))
    throw Refusal.field('hookHash', 'not a hook of this user or its agent');

  const psu = psuOf(origin.psu);
  const bulkId = newId('blk');
  const state = randomBytes(32).toString('base64url');
  const scaDeadline = new Date(Date.now() + config.OPENBANKING_SCA_TIMEOUT);
  const entries = body.payments;
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

  const input: BulkPaymentInput = {
    bulkId,
    state,
    ...callbackUrlsOf(origin.baseUrl, body.app, state),
    ...(psu ? { psu } : {}),
    scaDeadline: scaDeadline.toISOString(),
    bankRequestTimeoutMs: config.OPENBANKING_BANK_REQUEST_TIMEOUT,
    entryCount: entries.length,
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

/**
 * The bank's callback of a bulk's SCA (`/redirect/{app}/state/{state}`, when no consent or payment has
 * that state): signals the bulk's workflow, and answers the hook's redirectUrl (or null). Undefined when
 * no bulk has that state.
 */
export async function bulkBankCallback(
  deps: UseCaseDeps,
  callback: { app: string; state: string; nok: boolean },
): Promise<{ redirectUrl: string | null } | undefined> {
  const { app, state } = callback;
  if (!STATE_PATTERN.test(state) || !APP_PATTERN.test(app)) return undefined;
  const { db, temporal, logger } = deps;
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
      .signal(bulkCallbackSignal, { nok: callback.nok });
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    logger.info({ bulkId: row.bulk.id }, 'bank callback after the bulk ended');
  }
  return { redirectUrl: row.redirectUrl };
}

// ─── The bulk's record (status by hook, search) ─────────────────────────────────────────────────

export interface BulkView {
  bulkId: string;
  kind: BulkKind;
  status: BulkState;
  userId: string;
  bankHash: string;
  ibanId: string | null;
  debtorIban: string;
  hookHash: string | null;
  clientReference: string | null;
  entries: number;
  confirmed: number;
  failed: number;
  waiting: number;
  bankStatus: string | null;
  reason: string | null;
  createdAt: string;
  statusChangedAt: string;
  finishedAt: string | null;
}

type EntryCounts = { confirmed: number; failed: number; waiting: number };

/** The entries of each bulk by status, counted now (a bulk in progress moves batch by batch). */
async function entryCountsOf(db: Database, bulkIds: string[]) {
  const counts = new Map<string, EntryCounts>();
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

const toBulkView = (row: BulkRow, counts: EntryCounts | undefined): BulkView => ({
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

/** The bulks started with a hook of the agent, the newest `limit`, with how many there are; 404 for another's hook. */
export async function bulksOfHook(
  deps: UseCaseDeps,
  agentId: string,
  hookHash: string,
  limit: number,
): Promise<{ hookHash: string; total: number; bulks: BulkView[] }> {
  const { db } = deps;
  await requireAgentHook(db, agentId, hookHash);
  const where = and(eq(obBulkPayments.hookHash, hookHash), eq(obBulkPayments.agentId, agentId));
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(obBulkPayments)
      .where(where)
      .orderBy(desc(obBulkPayments.createdAt), desc(obBulkPayments.id))
      .limit(limit),
    db.select({ value: count() }).from(obBulkPayments).where(where),
  ]);
  const counts = await entryCountsOf(
    db,
    rows.map((row) => row.id),
  );
  return {
    hookHash,
    total: total?.value ?? 0,
    bulks: rows.map((row) => toBulkView(row, counts.get(row.id))),
  };
}

export const BULK_SORT_FIELDS = ['createdAt', 'statusChangedAt', 'entries'] as const;

export interface BulkSearch {
  criteria?:
    | {
        statuses?: BulkState[] | undefined;
        kinds?: BulkKind[] | undefined;
        bulkId?: string | undefined;
        userId?: string | undefined;
        bankHash?: string | undefined;
        hookHash?: string | undefined;
        clientReference?: string | undefined;
        dateFrom?: string | undefined;
        dateTo?: string | undefined;
      }
    | undefined;
  sortBy: (typeof BULK_SORT_FIELDS)[number];
  sortDirection: 'asc' | 'desc';
  page: number;
  size: number;
  entryStatuses?: PaymentStatus[] | undefined;
  entriesOffset: number;
  entriesLimit: number;
}

const SORT_COLUMNS = {
  createdAt: obBulkPayments.createdAt,
  statusChangedAt: obBulkPayments.statusChangedAt,
  entries: obBulkPayments.entryCount,
} as const;

/** POST bulk-payments/search: the agent's bulks matching the criteria, sorted and paged, with a window of entries. */
export async function searchBulks(
  deps: UseCaseDeps,
  agentId: string,
  input: BulkSearch,
): Promise<{
  page: number;
  size: number;
  total: number;
  items: (BulkView & { payments: AgentPaymentView[] })[];
}> {
  const { db } = deps;
  const criteria = input.criteria ?? {};
  const conditions: (SQL | undefined)[] = [eq(obBulkPayments.agentId, agentId)];
  if (criteria.statuses) conditions.push(inArray(obBulkPayments.status, criteria.statuses));
  if (criteria.kinds) conditions.push(inArray(obBulkPayments.kind, criteria.kinds));
  if (criteria.bulkId) conditions.push(eq(obBulkPayments.id, criteria.bulkId));
  if (criteria.userId) conditions.push(eq(obBulkPayments.userId, criteria.userId));
  if (criteria.bankHash) conditions.push(eq(obBulkPayments.bankHash, criteria.bankHash));
  if (criteria.hookHash) conditions.push(eq(obBulkPayments.hookHash, criteria.hookHash));
  if (criteria.clientReference) conditions.push(eq(obBulkPayments.clientReference, criteria.clientReference));
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
      return { ...toBulkView(row, counts.get(row.id)), payments: entries.map(toAgentPayment) };
    }),
  );
  return { page: input.page, size: input.size, total: total?.value ?? 0, items };
}
