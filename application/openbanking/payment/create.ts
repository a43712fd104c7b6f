import { randomBytes } from 'node:crypto';
import { digestOf, type UserIdentity } from '../../../credentials/openbanking/identity.ts';
import type { Database } from '../../../db/client.ts';
import { obPayments } from '../../../db/schema/openbanking-payments.ts';
import type { BudgetDetails } from '../../../domain/openbanking/payment-orders.ts';
import { minorOf, type PaymentKind, type PaymentScaMethod } from '../../../domain/openbanking/payments.ts';
import {
  openBankingSearchAttributes,
  type PaymentFlowInput,
  paymentWorkflowId,
} from '../../../domain/openbanking/processes.ts';
import { BusinessStatus } from '../../../domain/search-attributes.ts';
import type { paymentExecution } from '../../../workflows/openbanking/index.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';
import { Refusal } from '../../shared/refusal.ts';
import { findUserAccount } from '../accounts.ts';
import { findBankRow } from '../banks.ts';
import { findUsableHook } from '../hooks.ts';
import { callbackUrlsOf, type FlowOrigin, psuOf } from '../psu.ts';
import { confirmPayment } from './confirm.ts';
import { authorizedNow, type PaymentView, toPaymentView } from './read.ts';

/**
 * Creating a single payment (decision 0033): its row (CREATED, WAITING) and its workflow
 * `ob-payment-<code>`, from an added account or from an IBAN the user names at a bank.
 */

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

/** Who creates a payment, and where the request came from. */
interface PaymentRequest {
  user: UserIdentity;
  origin: FlowOrigin;
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
  {
    user,
    origin,
    ...request
  }: PaymentRequest & {
    kind: 'iban' | 'budget';
    order: PaymentOrder & { ibanId: string };
    budget?: BudgetDetails | undefined;
  },
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
  {
    user,
    origin,
    ...request
  }: PaymentRequest & {
    kind: 'direct' | 'budget_no_iban';
    order: DirectOrder;
    budget?: BudgetDetails | undefined;
  },
): Promise<PaymentCreated> {
  const draft = await draftDirect(deps.db, request.kind, request.order, request.budget);
  return { ...(await createPayment(deps, user, draft, origin)), authorized: null };
}

/** POST payment/direct-initiate: payment/direct and its confirmation in one call. */
export async function initiateDirectPayment(
  deps: UseCaseDeps,
  {
    user,
    origin,
    ...request
  }: PaymentRequest & { order: DirectOrder; scaMethod?: PaymentScaMethod | undefined },
): Promise<PaymentCreated> {
  const created = await createPayment(
    deps,
    user,
    await draftDirect(deps.db, 'direct', request.order),
    origin,
  );
  const confirmed = await confirmPayment(deps, {
    user,
    code: created.code,
    scaMethod: request.scaMethod,
    psu: origin.psu,
  });
  return { ...confirmed, callbackState: created.callbackState, authorized: null };
}
