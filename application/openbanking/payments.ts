import { randomBytes } from 'node:crypto';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { and, desc, eq } from 'drizzle-orm';
import { digestOf, type UserIdentity } from '../../credentials/openbanking/identity.ts';
import { scaSecretSubject } from '../../credentials/openbanking/sca-secrets.ts';
import type { Database } from '../../db/client.ts';
import { type obAccounts, obBanks, type obConsents, obHooks } from '../../db/schema/openbanking.ts';
import { obPayments, type PaymentRow } from '../../db/schema/openbanking-payments.ts';
import type { BudgetDetails } from '../../domain/openbanking/payment-orders.ts';
import {
  decimalOf,
  FINAL_PAYMENT_STATES,
  minorOf,
  type PaymentKind,
  type PaymentScaMethod,
  type PaymentState,
  type PaymentStatus,
  type TransactionStatus,
} from '../../domain/openbanking/payments.ts';
import {
  openBankingSearchAttributes,
  type PaymentFlowInput,
  PaymentRefusal,
  paymentCallbackSignal,
  paymentCancellationCallbackSignal,
  paymentCancelUpdate,
  paymentConfirmUpdate,
  paymentVerifySmsUpdate,
  paymentWorkflowId,
} from '../../domain/openbanking/processes.ts';
import { type ScaApproach, Xs2aErrorType } from '../../domain/openbanking/xs2a.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';
import type { paymentExecution } from '../../workflows/openbanking/index.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { findUserAccount } from './accounts.ts';
import { findBankRow } from './banks.ts';
import { sendHeldScaStep } from './held-sca-steps.ts';
import { findUsableHook, requireAgentHook } from './hooks.ts';
import { callbackUrlsOf, type FlowOrigin, type PsuRequest, psuOf } from './psu.ts';

/**
 * Single payments (decision 0033): creating one (row + workflow `ob-payment-<code>`), its confirmation,
 * SMS verification and cancellation (Updates; cancellation: decision 0070), its status, the bank's
 * callback of its SCA, and the authorization flag of an added account.
 */

export interface PaymentView {
  code: string;
  kind: PaymentKind;
  status: PaymentStatus;
  state: PaymentState;
  statusReason: string | null;
  ibanId: string | null;
  debtorIban: string;
  bankHash: string;
  creditorIban: string;
  creditorName: string;
  amount: string;
  currency: string;
  remittanceInformation: string | null;
  budget: { regulatoryReportType: string; paymentCategory: string; details: Record<string, string> } | null;
  hookHash: string | null;
  sca: { method: PaymentScaMethod; redirectUrl: string | null; message: string | null } | null;
  bankTransactionStatus: TransactionStatus | null;
  createdAt: string;
  updatedAt: string;
  confirmedAt: string | null;
  finishedAt: string | null;
}

export const toPaymentView = (row: PaymentRow): PaymentView => ({
  code: row.code,
  kind: row.kind,
  status: row.status,
  state: row.state,
  statusReason: row.statusReason,
  ibanId: row.ibanId,
  debtorIban: row.debtorIban,
  bankHash: row.bankHash,
  creditorIban: row.creditorIban,
  creditorName: row.creditorName,
  amount: decimalOf(row.amountMinor),
  currency: row.currency,
  remittanceInformation: row.remittanceInformation,
  budget:
    row.regulatoryReportType && row.paymentCategory
      ? {
          regulatoryReportType: row.regulatoryReportType,
          paymentCategory: row.paymentCategory,
          details: row.budgetDetails ?? {},
        }
      : null,
  hookHash: row.hookHash,
  sca: row.scaMethod
    ? { method: row.scaMethod, redirectUrl: row.scaRedirectUrl, message: row.scaMessage }
    : null,
  bankTransactionStatus: row.bankTransactionStatus,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  confirmedAt: row.confirmedAt?.toISOString() ?? null,
  finishedAt: row.finishedAt?.toISOString() ?? null,
});

/** A payment of the calling user; unknown, or another user's, is 404 (existence is not leaked). */
async function findUserPayment(db: Database, user: UserIdentity, code: string): Promise<PaymentRow> {
  const [row] = await db
    .select()
    .from(obPayments)
    .where(and(eq(obPayments.code, code), eq(obPayments.userId, user.userId)))
    .limit(1);
  if (!row) throw Refusal.notFound('Payment');
  return row;
}

/** GET payment/status: the user's payment by its code, from the read model. */
export async function readPayment(deps: UseCaseDeps, user: UserIdentity, code: string): Promise<PaymentView> {
  return toPaymentView(await findUserPayment(deps.db, user, code));
}

// ─── The authorization flag of an added account ─────────────────────────────────────────────────

/**
 * An added account may be paid from (flag true) while the consent that added it is ACTIVE and within
 * its validUntil: the user has proven at the bank, with SCA, that the account is theirs. Otherwise
 * (the consent expired, was revoked or ended) the flag is false and POST payment/sca/{ibanId} starts a
 * new consent for that account. Every payment is still authorised by the user at the bank (its own SCA).
 */
export function paymentAuthorizationOf(
  account: typeof obAccounts.$inferSelect,
  consent: typeof obConsents.$inferSelect,
  today = new Date().toISOString().slice(0, 10),
): { authorized: boolean; reason: string | null } {
  if (consent.status !== 'ACTIVE')
    return { authorized: false, reason: `the consent that added the account is ${consent.status}` };
  if (consent.validUntil < today)
    return { authorized: false, reason: 'the consent that added the account has expired' };
  if (account.deletedAt) return { authorized: false, reason: 'the account was deleted' };
  return { authorized: true, reason: null };
}

export interface PaymentAuthorization {
  ibanId: string;
  iban: string;
  authorized: boolean;
  reason: string | null;
  consentValidUntil: string;
}

/** GET payment/ibans/{ibanId}: the authorization flag of the user's account. */
export async function readPaymentAuthorization(
  deps: UseCaseDeps,
  user: UserIdentity,
  ibanId: string,
): Promise<PaymentAuthorization> {
  const { account, consent } = await findUserAccount(deps.db, user.userId, ibanId);
  return {
    ibanId: account.id,
    iban: account.iban,
    ...paymentAuthorizationOf(account, consent),
    consentValidUntil: consent.validUntil,
  };
}

/** The flag of an account of the user, read again (after a payment from it was recorded). */
async function authorizedNow(db: Database, user: UserIdentity, ibanId: string): Promise<boolean> {
  const { account, consent } = await findUserAccount(db, user.userId, ibanId);
  return paymentAuthorizationOf(account, consent).authorized;
}

// ─── Creating ───────────────────────────────────────────────────────────────────────────────────

/** What the user orders: the creditor, the amount, and the hook and app of the callback. */
export interface PaymentOrder {
  creditorIban: string;
  creditorName: string;
  amount: string;
  currency: string;
  remittanceInformation?: string | undefined;
  hookHash?: string | undefined;
  app: string;
}

const orderOf = (request: PaymentOrder): PaymentOrder => ({
  creditorIban: request.creditorIban,
  creditorName: request.creditorName,
  amount: request.amount,
  currency: request.currency,
  ...(request.remittanceInformation !== undefined
    ? { remittanceInformation: request.remittanceInformation }
    : {}),
  ...(request.hookHash !== undefined ? { hookHash: request.hookHash } : {}),
  app: request.app,
});

interface PaymentDraft {
  kind: PaymentKind;
  ibanId: string | null;
  debtorIban: string;
  bankHash: string;
  bankName: string;
  order: PaymentOrder;
  budget?: BudgetDetails | undefined;
}

export interface PaymentCreated extends PaymentView {
  /** Appended as `state` to the hook call and the redirectUrl of this payment. */
  callbackState: string;
  /** From an added account: its authorization flag; null for direct payments. */
  authorized: boolean | null;
}

/** Records the payment (CREATED, WAITING) and starts its workflow; answers the record and its state. */
async function createPayment(deps: UseCaseDeps, user: UserIdentity, draft: PaymentDraft, origin: FlowOrigin) {
  const { db, config, temporal } = deps;
  const { order } = draft;
  if (order.hookHash && !(await findUsableHook(db, user, order.hookHash)))
    throw Refusal.field('hookHash', 'not a hook of this user or its agent');
  const code = `pay_${randomBytes(16).toString('hex')}`;
  const state = randomBytes(32).toString('base64url');
  const psu = psuOf(origin.psu);
  const { regulatoryReportType, paymentCategory, ...details } = draft.budget ?? {};
  const [row] = await db
    .insert(obPayments)
    .values({
      code,
      agentId: user.agentId,
      userId: user.userId,
      kind: draft.kind,
      ibanId: draft.ibanId,
      debtorIban: draft.debtorIban,
      bankHash: draft.bankHash,
      creditorIban: order.creditorIban,
      creditorName: order.creditorName,
      amountMinor: minorOf(order.amount),
      currency: order.currency,
      remittanceInformation: order.remittanceInformation ?? null,
      regulatoryReportType: regulatoryReportType ?? null,
      paymentCategory: paymentCategory ?? null,
      budgetDetails: draft.budget ? (details as Record<string, string>) : null,
      hookHash: order.hookHash ?? null,
      app: order.app,
      stateDigest: digestOf(state),
      status: 'WAITING',
      state: 'CREATED',
      psuIpAddress: psu?.ipAddress ?? null,
      psuUserAgent: psu?.userAgent ?? null,
    })
    .returning();
  const input: PaymentFlowInput = {
    code,
    state,
    ...callbackUrlsOf(origin.baseUrl, order.app, state),
    confirmationTimeoutMs: config.OPENBANKING_PAYMENT_CONFIRMATION_TIMEOUT,
    scaTimeoutMs: config.OPENBANKING_SCA_TIMEOUT,
    decoupledPollMs: config.OPENBANKING_DECOUPLED_POLL_INTERVAL,
    bankRequestTimeoutMs: config.OPENBANKING_BANK_REQUEST_TIMEOUT,
  };
  await temporal.workflow.start<typeof paymentExecution>('paymentExecution', {
    workflowId: paymentWorkflowId(code),
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowIdConflictPolicy: 'FAIL',
    args: [input],
    typedSearchAttributes: [
      ...openBankingSearchAttributes({ ...user, bankHash: draft.bankHash }),
      { key: BusinessStatus, value: 'CREATED' },
    ],
    staticSummary: `Payment ${code} (${draft.kind}) of ${order.amount} ${order.currency} by user ${user.userId} at ${draft.bankName}`,
  });
  return { ...toPaymentView(row!), callbackState: state };
}

/**
 * POST payment/iban and budget-request: a payment from the user's added account `ibanId` (404 when it is
 * not theirs; its currency only), answered with the account's authorization flag.
 */
export async function createPaymentFromAccount(
  deps: UseCaseDeps,
  user: UserIdentity,
  request: { kind: 'iban' | 'budget'; order: PaymentOrder & { ibanId: string }; budget?: BudgetDetails },
  origin: FlowOrigin,
): Promise<PaymentCreated> {
  const { account, bank } = await findUserAccount(deps.db, user.userId, request.order.ibanId);
  if (account.currency !== request.order.currency)
    throw Refusal.field('currency', `must be the account’s currency (${account.currency})`);
  const draft: PaymentDraft = {
    kind: request.kind,
    ibanId: request.order.ibanId,
    debtorIban: account.iban,
    bankHash: bank.bankHash,
    bankName: bank.name,
    order: orderOf(request.order),
    budget: request.budget,
  };
  const payment = await createPayment(deps, user, draft, origin);
  return { ...payment, authorized: await authorizedNow(deps.db, user, request.order.ibanId) };
}

type DirectOrder = PaymentOrder & { bankHash: string; debtorIban: string };

/** The draft of a payment from an IBAN the user names at a bank (no consent, no added account). */
async function draftDirect(
  db: Database,
  kind: 'direct' | 'budget_no_iban',
  order: DirectOrder,
  budget?: BudgetDetails,
): Promise<PaymentDraft> {
  const bank = await findBankRow(db, order.bankHash);
  return {
    kind,
    ibanId: null,
    debtorIban: order.debtorIban,
    bankHash: bank.bankHash,
    bankName: bank.name,
    order: orderOf(order),
    budget,
  };
}

/** POST payment/direct and budget-request/no-iban: a payment from an IBAN the user names at a bank. */
export async function createDirectPayment(
  deps: UseCaseDeps,
  user: UserIdentity,
  request: { kind: 'direct' | 'budget_no_iban'; order: DirectOrder; budget?: BudgetDetails },
  origin: FlowOrigin,
): Promise<PaymentCreated> {
  const draft = await draftDirect(deps.db, request.kind, request.order, request.budget);
  return { ...(await createPayment(deps, user, draft, origin)), authorized: null };
}

/** POST payment/direct-initiate: payment/direct and its confirmation in one call. */
export async function initiateDirectPayment(
  deps: UseCaseDeps,
  user: UserIdentity,
  request: { order: DirectOrder; scaMethod?: PaymentScaMethod | undefined },
  origin: FlowOrigin,
): Promise<PaymentCreated> {
  const created = await createPayment(
    deps,
    user,
    await draftDirect(deps.db, 'direct', request.order),
    origin,
  );
  const confirmed = await confirmPayment(
    deps,
    user,
    { code: created.code, scaMethod: request.scaMethod },
    origin.psu,
  );
  return { ...confirmed, callbackState: created.callbackState, authorized: null };
}

// ─── Confirming, verifying ──────────────────────────────────────────────────────────────────────

const APPROACH_OF: Record<PaymentScaMethod, ScaApproach> = {
  REDIRECT: 'REDIRECT',
  EMBEDDED_SMS_OTP: 'EMBEDDED',
  DECOUPLED: 'DECOUPLED',
};

async function defaultApproach(db: Database, bankHash: string): Promise<ScaApproach> {
  const [bank] = await db
    .select({ flow: obBanks.bankFlowType })
    .from(obBanks)
    .where(eq(obBanks.bankHash, bankHash));
  return (bank?.flow.toUpperCase() ?? 'REDIRECT') as ScaApproach;
}

/**
 * Confirms the payment `code` of the user: the first confirmation initiates it at the bank and answers
 * once the bank said how the user authenticates; a later one answers the payment as it stands, moving
 * no money. With `checkAccount`, a payment from an added account whose authorization flag is false is 409.
 */
export async function confirmPayment(
  deps: UseCaseDeps,
  user: UserIdentity,
  request: { code: string; scaMethod?: PaymentScaMethod | undefined; checkAccount?: boolean },
  psuRequest: PsuRequest,
): Promise<PaymentView> {
  const { db, temporal } = deps;
  const row = await findUserPayment(db, user, request.code);
  if (row.state === 'CREATED' && request.checkAccount && row.ibanId) {
    const { account, consent } = await findUserAccount(db, user.userId, row.ibanId);
    const flag = paymentAuthorizationOf(account, consent);
    if (!flag.authorized)
      throw Refusal.conflict(
        'payment_not_authorized',
        `Payments from this account need SCA first (${flag.reason}): POST payment/sca/${row.ibanId}`,
      );
  }
  const psu = psuOf(psuRequest);
  const approach = request.scaMethod
    ? APPROACH_OF[request.scaMethod]
    : await defaultApproach(db, row.bankHash);
  try {
    await temporal.workflow
      .getHandle(paymentWorkflowId(row.code))
      .executeUpdate(paymentConfirmUpdate, { args: [{ approach, ...(psu ? { psu } : {}) }] });
  } catch (error) {
    // The payment ended already (expired, or confirmed and done): its record is the answer.
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
  return toPaymentView(await findUserPayment(db, user, row.code));
}

/** The exact answers of PUT payment/verify-sms's refusals. */
const SMS_REFUSALS = {
  [PaymentRefusal.smsCodeInvalid]: {
    status: 422,
    code: 'sms_code_invalid',
    message: 'The SMS code is wrong',
  },
  [PaymentRefusal.smsCodeExpired]: {
    status: 422,
    code: 'sms_code_expired',
    message: 'The SMS code has expired',
  },
  [PaymentRefusal.smsCodeUsed]: {
    status: 409,
    code: 'sms_code_used',
    message: 'The SMS code was already used',
  },
  [PaymentRefusal.notAwaitingCode]: {
    status: 409,
    code: 'payment_not_awaiting_code',
    message: 'The payment is not waiting for an SMS code',
  },
  [PaymentRefusal.stepExpired]: {
    status: 409,
    code: 'sca_step_expired',
    message: 'The SMS code is no longer held (it expired, or an interrupted attempt used it): send it again',
  },
} as const;

const refusal = (type: keyof typeof SMS_REFUSALS) => {
  const { status, code, message } = SMS_REFUSALS[type];
  return new Refusal(status, code, message);
};

const usedOrNotAwaiting = (row: PaymentRow): keyof typeof SMS_REFUSALS =>
  row.scaMethod === 'EMBEDDED_SMS_OTP' &&
  row.confirmedAt &&
  row.state !== 'AWAITING_SCA' &&
  row.state !== 'INITIATED'
    ? PaymentRefusal.smsCodeUsed
    : PaymentRefusal.notAwaitingCode;

/** Relays the bank's one-time code to the payment's authorisation at the bank; answers the payment. */
export async function verifySms(
  deps: UseCaseDeps,
  user: UserIdentity,
  request: { code: string; smsCode: string },
  psuRequest: PsuRequest,
): Promise<PaymentView> {
  const { db, temporal } = deps;
  const row = await findUserPayment(db, user, request.code);
  const psu = psuOf(psuRequest);
  try {
    // The code does not cross the engine (decision 0068): the Update names it in ob_sca_secrets.
    await sendHeldScaStep(
      deps,
      scaSecretSubject.payment(row.code),
      { smsCode: request.smsCode },
      (secretRef) =>
        temporal.workflow.getHandle(paymentWorkflowId(row.code)).executeUpdate(paymentVerifySmsUpdate, {
          args: [{ secretRef, ...(psu ? { psu } : {}) }],
        }),
    );
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      const type = error.cause.type as keyof typeof SMS_REFUSALS;
      if (type in SMS_REFUSALS) {
        // A code sent again after the payment went through was used already.
        if (type === PaymentRefusal.notAwaitingCode) throw refusal(usedOrNotAwaiting(row));
        throw refusal(type);
      }
    }
    if (error instanceof WorkflowNotFoundError) {
      throw refusal(usedOrNotAwaiting(await findUserPayment(db, user, row.code)));
    }
    // Any other failure of the bank's call: the code was taken (decision 0068), so it is given again.
    if (error instanceof WorkflowUpdateFailedError) throw bankFailureOf(error);
    throw error;
  }
  return toPaymentView(await findUserPayment(db, user, row.code));
}

/** The bank could not be reached (503), or refused the code for a reason the gateway has no answer for (502). */
function bankFailureOf(error: WorkflowUpdateFailedError): Refusal {
  const cause = error.cause instanceof ActivityFailure ? error.cause.cause : error.cause;
  if (cause instanceof ApplicationFailure && cause.type === Xs2aErrorType.BankUnavailable)
    return new Refusal(503, 'bank_unavailable', 'The bank could not be reached; send the code again later');
  return new Refusal(
    502,
    'bank_refused',
    'The bank refused the code; send it again or start the payment again',
  );
}

// ─── Cancelling (decision 0070) ──────────────────────────────────────────────────────────────────

export interface PaymentCancellationView extends PaymentView {
  /** CANCELLED, or AWAITING_SCA: the bank wants the user to authorise the cancellation on its page. */
  cancellation: 'CANCELLED' | 'AWAITING_SCA';
  /** AWAITING_SCA: the bank's page to send the user's browser to (back to the payment's callback). */
  scaRedirectUrl: string | null;
}

const notCancellable = (state: PaymentState) =>
  Refusal.conflict('payment_not_cancellable', `The payment is ${state} and can no longer be cancelled`);

const CANCEL_REFUSALS: Record<string, (message: string) => Refusal> = {
  [PaymentRefusal.notCancellable]: (message) => Refusal.conflict('payment_not_cancellable', message),
  [PaymentRefusal.cancellationRefused]: (message) =>
    new Refusal(502, 'bank_refused', `The bank refused the cancellation: ${message}`),
  [PaymentRefusal.bankUnavailable]: () =>
    new Refusal(503, 'bank_unavailable', 'The bank could not be reached; try again later'),
};

/**
 * DELETE payment/{code}: the user cancels their payment (an Update of its workflow). Not yet at the bank,
 * or cancelled by the bank at once: CANCELLED. The bank wants its own SCA for the cancellation: the
 * payment as it stands and the bank's page; the payment ends CANCELLED once the user approved there (a
 * refusal leaves it as it was). Throws Refusal: 404 not the user's, 409 `payment_not_cancellable` (ended,
 * or the bank says it is past cancelling), 502 `bank_refused`, 503 `bank_unavailable`.
 */
export async function cancelPayment(
  deps: UseCaseDeps,
  user: UserIdentity,
  code: string,
  psuRequest: PsuRequest,
): Promise<PaymentCancellationView> {
  const { db, temporal } = deps;
  const row = await findUserPayment(db, user, code);
  if (FINAL_PAYMENT_STATES.includes(row.state)) throw notCancellable(row.state);
  const psu = psuOf(psuRequest);
  let scaRedirectUrl: string | null;
  try {
    ({ scaRedirectUrl } = await temporal.workflow
      .getHandle(paymentWorkflowId(row.code))
      .executeUpdate(paymentCancelUpdate, { args: [psu ? { psu } : {}] }));
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      const refusal = CANCEL_REFUSALS[error.cause.type ?? ''];
      if (refusal) throw refusal(error.cause.message);
    }
    // The payment ended meanwhile: its record says how.
    if (error instanceof WorkflowNotFoundError)
      throw notCancellable((await findUserPayment(db, user, row.code)).state);
    throw error;
  }
  return {
    ...toPaymentView(await findUserPayment(db, user, row.code)),
    cancellation: scaRedirectUrl ? 'AWAITING_SCA' : 'CANCELLED',
    scaRedirectUrl,
  };
}

// ─── By hook, and the bank's callback ───────────────────────────────────────────────────────────

/**
 * GET status/{hookHash}: the payments made with a hook of the agent, newest first (at most 50). A hook
 * names a URL to call, not a payment. Another agent's hook, or one no payment used, is 404.
 */
export async function paymentsOfHook(
  deps: UseCaseDeps,
  agentId: string,
  hookHash: string,
): Promise<{ latest: PaymentView; payments: PaymentView[] }> {
  const { db } = deps;
  await requireAgentHook(db, agentId, hookHash);
  const rows = await db
    .select()
    .from(obPayments)
    .where(and(eq(obPayments.hookHash, hookHash), eq(obPayments.agentId, agentId)))
    .orderBy(desc(obPayments.createdAt), desc(obPayments.code))
    .limit(50);
  const latest = rows[0];
  if (!latest) throw Refusal.notFound('Payment');
  return { latest: toPaymentView(latest), payments: rows.map(toPaymentView) };
}

/**
 * The bank callback `/redirect/{app}/state/{state}` of a payment's redirect SCA (or, marked
 * `?sca=cancellation`, of its cancellation's SCA): the payment is found by
 * the digest of its state and its workflow signalled (the bank, not the browser, then says how the
 * payment stands). Undefined when no payment has this state.
 */
export async function paymentBankCallback(
  deps: UseCaseDeps,
  callback: { app: string; state: string; nok: boolean; cancellation?: boolean },
): Promise<{ redirectUrl: string | null } | undefined> {
  const { db, temporal, logger } = deps;
  const [row] = await db
    .select({ code: obPayments.code, redirectUrl: obHooks.redirectUrl })
    .from(obPayments)
    .leftJoin(obHooks, eq(obHooks.hookHash, obPayments.hookHash))
    .where(and(eq(obPayments.stateDigest, digestOf(callback.state)), eq(obPayments.app, callback.app)))
    .limit(1);
  if (!row) return undefined;
  try {
    // The return from a cancellation's own SCA (decision 0070) is marked; the payment's SCA is not.
    await temporal.workflow
      .getHandle(paymentWorkflowId(row.code))
      .signal(callback.cancellation ? paymentCancellationCallbackSignal : paymentCallbackSignal, {
        nok: callback.nok,
      });
  } catch (error) {
    // The payment ended already (expired, or a repeated callback): the user is still sent on.
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    logger.info({ code: row.code }, 'bank callback after the payment ended');
  }
  return { redirectUrl: row.redirectUrl };
}
