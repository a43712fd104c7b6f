import { and, desc, eq } from 'drizzle-orm';
import type { DeskOperator } from '../../credentials/collect/desk-operators.ts';
import { recipientIdOf } from '../../credentials/collect/recipient-ids.ts';
import { collectSecretKey } from '../../credentials/collect/secret-box.ts';
import { collectObligationEvents } from '../../db/schema/collect.ts';
import { collectDeskOperations } from '../../db/schema/collect-desk.ts';
import { formatAmount } from '../../domain/collect/amount.ts';
import { billingCodes } from '../../domain/collect/billing.ts';
import {
  type DeskOperationKind,
  deskBcode,
  deskRequestDigest,
  deskStan,
  parseReceipt,
  receiptOf,
  recipientMatches,
} from '../../domain/collect/desk.ts';
import { CollectProtocolError } from '../../domain/collect/errors.ts';
import { isOpen, officePayableKinds } from '../../domain/collect/obligation.ts';
import {
  type ObligationOutcome,
  payObligationUpdate,
  type SettlementSource,
} from '../../domain/collect/processes.ts';
import { formatExpTime } from '../../domain/epay-time.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { keyReused } from '../shared/idempotency.ts';
import { Refusal } from '../shared/refusal.ts';
import { billingRefusals, type OfficeBillingResult, officeBillingPayment } from './billing.ts';
import { findObligation, type Obligation, updateObligation } from './obligation.ts';

/**
 * What a cash desk does (decision 0030): look up an IDN, take a payment of an obligation or of a
 * billing IDN, pay out a cash payout to its identified recipient. Every payment and payout is one row
 * of collect_desk_operations with its operator and receipt, written before the workflow is asked, so
 * a repeated request (same operator, same idempotency key) answers the same receipt or the same
 * refusal; the obligation workflow's Update validator decides which of two desks pays an IDN.
 * The desk API, the desk page and the sandbox demo endpoints all call these functions.
 */

type Operation = typeof collectDeskOperations.$inferSelect;

/** What a desk sees of an IDN before it acts. */
export type IdnView =
  | {
      type: 'obligation';
      idn: string;
      kind: Obligation['kind'];
      /** What the desk can do with it now: take a payment, pay out cash, or nothing. */
      action: 'payment' | 'payout' | 'none';
      status: Obligation['status'];
      invoice: string;
      merchantMin: string;
      amountMinor: number;
      amount: string;
      currency: string;
      description: string | null;
      expiresAt: string;
      expTime: string;
      payTime: string | null;
    }
  | {
      type: 'billing';
      idn: string;
      /** The TID of the check sent to the merchant's /pay/init. */
      tid: string;
      action: 'payment';
      status: 'DUE';
      merchantMin: string;
      amountMinor: number;
      amount: string;
      currency: string;
      shortDesc: string | null;
      invoices: string | null;
    };

/** The receipt of a completed operation. */
export interface DeskReceipt {
  receipt: string;
  operation: DeskOperationKind;
  idn: string;
  status: 'PAID';
  merchantMin: string;
  invoice: string | null;
  /** The obligation's DESCR, or what the billing system said is paid (SHORTDESC). */
  description: string | null;
  amountMinor: number;
  amount: string;
  currency: string;
  payTime: string | null;
  stan: string | null;
  bcode: string | null;
  /** Billing IDNs: the transaction id sent to the merchant's billing system. */
  tid: string | null;
  officeId: string;
  operatorId: string;
  completedAt: string;
}

export interface DeskAnswer {
  receipt: DeskReceipt;
  /** True when an earlier request with the same idempotency key did the operation. */
  replayed: boolean;
}

const BILLING_CURRENCY = 'BGN';

/** A stored refusal, answered again to a repeated request. */
interface StoredRefusal {
  refusal: { status: number; code: string; message: string };
}

const refusalError = ({ refusal }: StoredRefusal) =>
  new Refusal(refusal.status as 409, refusal.code, refusal.message);

// --- look-up -------------------------------------------------------------------------------------

/** An obligation, hold or payout by IDN, or what a merchant's billing system says is due on it. */
export async function lookUpIdn(
  deps: UseCaseDeps,
  { operator, idn }: { operator: DeskOperator; idn: string },
): Promise<IdnView> {
  const row = await findObligation(deps, { idn });
  if (row) return obligationView(row);
  const billing = await officeBillingPayment(deps, { idn, action: 'CHECK', officeId: operator.officeId });
  if (!billing.found) throw Refusal.notFound(`IDN ${idn}`);
  const { outcome } = billing;
  if (outcome.result !== 'ok') throw billingRefusal(billing);
  return {
    type: 'billing',
    idn,
    tid: billing.tid,
    action: 'payment',
    status: 'DUE',
    merchantMin: billing.merchantMin,
    amountMinor: outcome.amountMinor,
    amount: formatAmount(outcome.amountMinor),
    currency: BILLING_CURRENCY,
    shortDesc: outcome.shortDesc ?? null,
    invoices: outcome.invoices ?? null,
  };
}

function obligationView(row: Obligation): IdnView {
  const open = isOpen(row.status) && row.expiresAt.getTime() > Date.now();
  const action =
    !open || row.status !== 'PENDING'
      ? 'none'
      : row.kind === 'payout_office'
        ? 'payout'
        : officePayableKinds.includes(row.kind)
          ? 'payment'
          : 'none';
  return {
    type: 'obligation',
    idn: row.idn,
    kind: row.kind,
    action,
    // An open obligation whose expiry has passed is expired, whether or not its timer has fired yet.
    status: isOpen(row.status) && !open ? 'EXPIRED' : row.status,
    invoice: row.invoice,
    merchantMin: row.merchantMin,
    amountMinor: row.paidAmountMinor ?? row.amountMinor,
    amount: formatAmount(row.paidAmountMinor ?? row.amountMinor),
    currency: row.currency,
    description: row.description,
    expiresAt: row.expiresAt.toISOString(),
    expTime: formatExpTime(row.expiresAt),
    payTime: row.payTime,
  };
}

// --- operations ----------------------------------------------------------------------------------

export interface DeskRequest {
  operator: DeskOperator;
  /** The client's Idempotency-Key, or the page form's request id. */
  idempotencyKey: string;
  idn: string;
}

/** Takes the payment of an office bill, deposit slip or bank transfer order, or of a billing IDN. */
export async function takePayment(deps: UseCaseDeps, request: DeskRequest): Promise<DeskAnswer> {
  const row = await findObligation(deps, { idn: request.idn });
  if (!row) {
    return runOperation(deps, request, 'billing_payment', {}, (operation) =>
      payBillingIdn(deps, request, operation),
    );
  }
  if (row.kind === 'payout_office') {
    throw new Refusal(409, 'wrong_kind', `${row.idn} is a cash payout: pay it out (POST /desk/api/payouts)`);
  }
  if (!officePayableKinds.includes(row.kind)) {
    throw new Refusal(409, 'wrong_kind', `a ${row.kind} is not paid at a cash desk`);
  }
  return runOperation(deps, request, 'payment', {}, (operation) => settleAtDesk(deps, row, operation));
}

/** Hands out a cash payout, once the recipient's ID and name match those the merchant registered. */
export async function payOutCash(
  deps: UseCaseDeps,
  request: DeskRequest & { recipientId: string; recipientName: string },
): Promise<DeskAnswer> {
  const row = await findObligation(deps, { idn: request.idn });
  if (!row) throw Refusal.notFound(`IDN ${request.idn}`);
  if (row.kind !== 'payout_office') {
    throw new Refusal(409, 'wrong_kind', `${row.idn} is no cash payout: take its payment instead`);
  }
  const presented = { recipientId: request.recipientId, recipientName: request.recipientName };
  return runOperation(deps, request, 'payout', presented, async (operation) => {
    // Which of the two differs is not said: the registered values are the merchant's, not the desk's.
    const registered = {
      recipientName: row.details.recipientName,
      recipientId: recipientIdOf(collectSecretKey(deps.config), row),
    };
    if (!recipientMatches(registered, presented)) {
      throw new Refusal(
        422,
        'identity_mismatch',
        "the recipient's ID and name do not match the payout's recipient",
      );
    }
    return settleAtDesk(deps, row, operation);
  });
}

/**
 * The idempotent frame of an operation: records it (pending) under the operator's key, runs it,
 * and records its receipt or refusal. A repeated key answers what the first request got; a request
 * that found its key pending (the first one crashed or is still running) runs it again, which the
 * workflow Update id and the billing TID make the same operation, not a second one.
 */
async function runOperation(
  deps: UseCaseDeps,
  request: DeskRequest,
  kind: DeskOperationKind,
  fields: Record<string, string>,
  perform: (operation: Operation) => Promise<Omit<DeskReceipt, 'completedAt'>>,
): Promise<DeskAnswer> {
  const { operator, idempotencyKey, idn } = request;
  const requestDigest = deskRequestDigest(kind, { idn, ...fields });
  const [inserted] = await deps.db
    .insert(collectDeskOperations)
    .values({
      operatorId: operator.id,
      officeId: operator.officeId,
      idempotencyKey,
      requestDigest,
      kind,
      idn,
      state: 'pending',
    })
    .onConflictDoNothing()
    .returning();
  const operation = inserted ?? (await operationByKey(deps, operator.id, idempotencyKey));
  if (!operation) throw new Error('desk operation vanished');
  if (operation.requestDigest !== requestDigest) {
    throw keyReused('this Idempotency-Key was used for another request; use a new key for a new operation');
  }
  if (operation.state === 'completed')
    return { receipt: operation.result as unknown as DeskReceipt, replayed: true };
  if (operation.state === 'refused') throw refusalError(operation.result as unknown as StoredRefusal);

  try {
    const done = await perform(operation);
    const receipt: DeskReceipt = { ...done, completedAt: new Date().toISOString() };
    const [completed] = await deps.db
      .update(collectDeskOperations)
      .set({
        state: 'completed',
        amountMinor: receipt.amountMinor,
        currency: receipt.currency,
        result: receipt as unknown as Record<string, unknown>,
        completedAt: new Date(receipt.completedAt),
      })
      .where(and(eq(collectDeskOperations.id, operation.id), eq(collectDeskOperations.state, 'pending')))
      .returning();
    // A concurrent request with the same key got there first: its receipt is the receipt.
    if (!completed) {
      const first = await operationByKey(deps, operator.id, idempotencyKey);
      return { receipt: first?.result as unknown as DeskReceipt, replayed: true };
    }
    return { receipt, replayed: !inserted };
  } catch (error) {
    // A billing refusal is final for its TID too: the same key answers it again.
    if (error instanceof Refusal && (error.status < 500 || error instanceof BillingRefusal)) {
      const stored: StoredRefusal = {
        refusal: { status: error.status, code: error.code, message: error.message },
      };
      await deps.db
        .update(collectDeskOperations)
        .set({
          state: 'refused',
          result: stored as unknown as Record<string, unknown>,
          completedAt: new Date(),
        })
        .where(and(eq(collectDeskOperations.id, operation.id), eq(collectDeskOperations.state, 'pending')));
    }
    // Anything else leaves it pending: the same key tries again.
    throw error;
  }
}

async function operationByKey(deps: UseCaseDeps, operatorId: string, idempotencyKey: string) {
  const [row] = await deps.db
    .select()
    .from(collectDeskOperations)
    .where(
      and(
        eq(collectDeskOperations.operatorId, operatorId),
        eq(collectDeskOperations.idempotencyKey, idempotencyKey),
      ),
    );
  return row;
}

/** The desk, operator and receipt of an operation: where the money is, as the ledger records it. */
function deskSource(operation: Operation): Extract<SettlementSource, { channel: 'cash_desk' }> {
  return {
    channel: 'cash_desk',
    officeId: operation.officeId,
    operatorId: operation.operatorId,
    receipt: receiptOf(operation.officeId, operation.id),
  };
}

/** Settles the obligation through its workflow; its validator refuses a second payment. */
async function settleAtDesk(
  deps: UseCaseDeps,
  row: Obligation,
  operation: Operation,
): Promise<Omit<DeskReceipt, 'completedAt'>> {
  const source = deskSource(operation);
  const { receipt } = source;
  let outcome: Pick<ObligationOutcome, 'amountMinor' | 'paidAmountMinor' | 'payTime' | 'stan' | 'bcode'>;
  try {
    outcome = await executePayment(deps, row, operation, source);
  } catch (error) {
    // This very operation paid it (its first try's answer was lost, and the workflow has closed since).
    const paidByUs =
      error instanceof CollectProtocolError && error.code === 'ALREADY_PAID'
        ? await paidWith(deps, row.idn, receipt)
        : undefined;
    if (!paidByUs) {
      if (error instanceof CollectProtocolError && error.status < 500) {
        throw new Refusal(error.status as 409, error.code.toLowerCase(), error.message);
      }
      throw error;
    }
    outcome = paidByUs;
  }
  return {
    receipt,
    operation: operation.kind,
    idn: row.idn,
    status: 'PAID',
    merchantMin: row.merchantMin,
    invoice: row.invoice,
    description: row.description,
    amountMinor: outcome.paidAmountMinor ?? outcome.amountMinor,
    amount: formatAmount(outcome.paidAmountMinor ?? outcome.amountMinor),
    currency: row.currency,
    payTime: outcome.payTime ?? null,
    stan: outcome.stan ?? null,
    bcode: outcome.bcode ?? null,
    tid: null,
    officeId: operation.officeId,
    operatorId: operation.operatorId,
  };
}

/** The paid obligation, when the PAID event's source is this receipt. */
async function paidWith(deps: UseCaseDeps, idn: string, receipt: string) {
  const events = await deps.db
    .select({ detail: collectObligationEvents.detail })
    .from(collectObligationEvents)
    .where(and(eq(collectObligationEvents.idn, idn), eq(collectObligationEvents.status, 'PAID')));
  const ours = events.some(
    (event) => (event.detail.source as { receipt?: unknown } | undefined)?.receipt === receipt,
  );
  const row = ours ? await findObligation(deps, { idn }) : undefined;
  if (!row) return undefined;
  return {
    amountMinor: row.amountMinor,
    paidAmountMinor: row.paidAmountMinor ?? undefined,
    payTime: row.payTime ?? undefined,
    stan: row.stan ?? undefined,
    bcode: row.bcode ?? undefined,
  };
}

/** The Update id is the operation's: a repeated request gets the first one's outcome from Temporal. */
function executePayment(deps: UseCaseDeps, row: Obligation, operation: Operation, source: SettlementSource) {
  return updateObligation(deps, row, (handle) =>
    handle.executeUpdate(payObligationUpdate, {
      args: [{ stan: deskStan(operation.id), bcode: deskBcode(operation.officeId), source }],
      updateId: `desk-${operation.id}`,
    }),
  );
}

async function payBillingIdn(
  deps: UseCaseDeps,
  request: DeskRequest,
  operation: Operation,
): Promise<Omit<DeskReceipt, 'completedAt'>> {
  const billing = await officeBillingPayment(deps, {
    idn: request.idn,
    action: 'PAY',
    officeId: operation.officeId,
    stan: deskStan(operation.id),
    at: operation.createdAt,
    source: deskSource(operation),
  });
  if (!billing.found) throw Refusal.notFound(`IDN ${request.idn}`);
  if (billing.outcome.result !== 'ok') throw billingRefusal(billing);
  const amountMinor = billing.outcome.amountMinor;
  return {
    receipt: receiptOf(operation.officeId, operation.id),
    operation: 'billing_payment',
    idn: request.idn,
    status: 'PAID',
    merchantMin: billing.merchantMin,
    invoice: billing.outcome.invoices ?? null,
    description: billing.outcome.shortDesc ?? null,
    amountMinor,
    amount: formatAmount(amountMinor),
    currency: BILLING_CURRENCY,
    payTime: billing.tid.slice(0, 14),
    stan: deskStan(operation.id),
    bcode: deskBcode(operation.officeId),
    tid: billing.tid,
    officeId: operation.officeId,
    operatorId: operation.operatorId,
  };
}

/** A refusal of the merchant's billing system: the desk API's error, with the merchant's code. */
export class BillingRefusal extends Refusal {
  constructor(
    status: 404 | 409 | 502 | 503,
    code: string,
    message: string,
    readonly billing: { billingCode: string; merchantMin: string; tid: string },
  ) {
    super(status, code, message);
    this.name = 'BillingRefusal';
  }
}

function billingRefusal(billing: Extract<OfficeBillingResult, { found: true }>): BillingRefusal {
  const { outcome, merchantMin, tid } = billing;
  switch (outcome.result) {
    case 'ok':
      throw new Error('not a refusal');
    case 'refused': {
      const refusal = billingRefusals[outcome.code as keyof typeof billingRefusals];
      return new BillingRefusal(
        refusal.status,
        refusal.err.toLowerCase(),
        billingCodes[outcome.code].meaning,
        {
          billingCode: outcome.code,
          merchantMin,
          tid,
        },
      );
    }
    case 'unavailable':
      return new BillingRefusal(
        503,
        'billing_unavailable',
        'the billing system is temporarily unavailable; try again later',
        {
          billingCode: '80',
          merchantMin,
          tid,
        },
      );
    case 'invalid_reply':
      return new BillingRefusal(502, 'billing_bad_reply', outcome.error, {
        billingCode: outcome.code,
        merchantMin,
        tid,
      });
  }
}

// --- the operator's own records ------------------------------------------------------------------

export interface DeskOperationRecord {
  receipt: string;
  operation: DeskOperationKind;
  idn: string;
  state: Operation['state'];
  amountMinor: number | null;
  currency: string | null;
  createdAt: string;
  completedAt: string | null;
  /** The receipt of a completed operation, or the refusal of a refused one. */
  result: Record<string, unknown> | null;
}

const recordOf = (row: Operation): DeskOperationRecord => ({
  receipt: receiptOf(row.officeId, row.id),
  operation: row.kind,
  idn: row.idn,
  state: row.state,
  amountMinor: row.amountMinor,
  currency: row.currency,
  createdAt: row.createdAt.toISOString(),
  completedAt: row.completedAt?.toISOString() ?? null,
  result: row.result,
});

/** One of the operator's own operations by receipt; another operator's is not found. */
export async function operationOf(
  deps: UseCaseDeps,
  { operator, receipt }: { operator: DeskOperator; receipt: string },
): Promise<DeskOperationRecord> {
  const parsed = parseReceipt(receipt);
  const [row] = parsed
    ? await deps.db
        .select()
        .from(collectDeskOperations)
        .where(
          and(
            eq(collectDeskOperations.id, parsed.sequence),
            eq(collectDeskOperations.officeId, parsed.officeId),
            eq(collectDeskOperations.operatorId, operator.id),
          ),
        )
    : [];
  if (!row) throw Refusal.notFound(`Receipt ${receipt}`);
  return recordOf(row);
}

/** The operator's latest operations, newest first. */
export async function operationsOf(
  deps: UseCaseDeps,
  { operator, limit }: { operator: DeskOperator; limit: number },
): Promise<DeskOperationRecord[]> {
  const rows = await deps.db
    .select()
    .from(collectDeskOperations)
    .where(eq(collectDeskOperations.operatorId, operator.id))
    .orderBy(desc(collectDeskOperations.id))
    .limit(limit);
  return rows.map(recordOf);
}
