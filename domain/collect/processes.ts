import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { BillingCode } from './billing.ts';
import { isPayout, type ObligationKind, type ObligationStatus } from './obligation.ts';

/**
 * The payment-collection gateway's processes as their callers (API, activities, other workflows) see
 * them: workflow ids (`<process>-<business id>`) and their prefixes, signals, updates, and what crosses
 * the boundary. The workflows themselves are in workflows/collect/, one file per process.
 */

/** Workflow id prefixes of the payment-collection gateway, one per process. */
export const COLLECT_WORKFLOW_PREFIXES = {
  /** An obligation, hold or card payment (workflows/collect/obligation.ts). */
  collect: 'collect-',
  /** A cash or provider payout, the same obligation process (workflows/collect/obligation.ts). */
  payout: 'payout-',
  /** The notifications of one merchant (workflows/collect/merchant-notifications.ts). */
  merchantNotifications: 'merchant-notifications-',
  /** An office payment of an IDN of a merchant's billing system (workflows/collect/billing.ts). */
  billing: 'billing-',
  /** The import of one bank statement (workflows/collect/statements.ts). */
  statementImport: 'statement-import-',
} as const;

// --- obligation: collect-<idn> / payout-<idn> ----------------------------------------------------

/** Business id as workflow id: `payout-<idn>` for payouts, `collect-<idn>` for the rest. */
export const obligationWorkflowId = (kind: ObligationKind, idn: string) =>
  `${isPayout(kind) ? COLLECT_WORKFLOW_PREFIXES.payout : COLLECT_WORKFLOW_PREFIXES.collect}${idn}`;

export interface ObligationInput {
  idn: string;
  merchantMin: string;
  invoice: string;
  kind: ObligationKind;
  /** Registered (or held) amount in minor units. */
  amountMinor: number;
  currency: string;
  /** ISO time of the expiry (EXP_TIME or the configured default); moved by changeExpiryUpdate. */
  expiresAt: string;
  /** payout_provider: the provider account credited (domain/collect/ledger.ts providerAccountId). */
  providerAccount?: string | undefined;
  /**
   * A run started to take back a payment (decision 0063): the bank reversed the statement credit that
   * paid the obligation. The run un-pays it first, tells the merchant, then is an open obligation again.
   */
  reversal?: PaymentReversal | undefined;
}

/** The workflow input of an obligation, from its read-model row (registration; a reversal's new run). */
export function obligationInputOf(
  row: {
    idn: string;
    merchantMin: string;
    invoice: string;
    kind: ObligationKind;
    amountMinor: number;
    currency: string;
    expiresAt: Date;
    details: { providerAccount?: string | undefined };
  },
  reversal?: PaymentReversal,
): ObligationInput {
  return {
    idn: row.idn,
    merchantMin: row.merchantMin,
    invoice: row.invoice,
    kind: row.kind,
    amountMinor: row.amountMinor,
    currency: row.currency,
    expiresAt: row.expiresAt.toISOString(),
    providerAccount: row.details.providerAccount,
    ...(reversal ? { reversal } : {}),
  };
}

/** A bank's reversal (RvslInd) of the statement credit that paid an obligation (decision 0063). */
export interface PaymentReversal {
  /** The reversal entry: the statement that brought it and its key (`RVSL:<reference>`). */
  statementId: string;
  entryRef: string;
  /** The credit it takes back: the source recorded with PAID. */
  reverses: { statementId: string; entryRef: string };
  /** How many payments of the obligation have been taken back, this one included (1 for the first). */
  round: number;
  /**
   * The PAY_TIME of the payment taken back (the obligation's when the reversal was found), told to the
   * merchant on the REVERSED line (decision 0063, amended 2026-11-28); absent in runs started before.
   */
  payTime?: string | undefined;
}

/** Where an obligation stands after an Update: what the API answers. */
export interface ObligationOutcome {
  status: ObligationStatus;
  amountMinor: number;
  paidAmountMinor?: number | undefined;
  payTime?: string | undefined;
  stan?: string | undefined;
  bcode?: string | undefined;
  expiresAt: string;
  /** DENIED card payment or charge: why (the acquirer's decline reason). */
  reason?: string | undefined;
  /** The card saved by this obligation (SAVECARD=1), once saved. */
  savedCard?: SavedCardView | undefined;
}

/**
 * A card saved with the gateway (decision 0045), as the merchant learns it: the gateway's `ctk_` token
 * (never the acquirer's), brand, last four digits and expiry. Nothing here charges the card alone.
 */
export interface SavedCardView {
  cardToken: string;
  /** Upper case: VISA, MASTERCARD, AMEX, ... */
  brand: string;
  last4: string;
  expiryMonth: number;
  expiryYear: number;
}

/** Where the money of a settlement came from: recorded with the status, posted to the ledger. */
export type SettlementSource =
  | { channel: 'cash_desk'; officeId: string; operatorId: string; receipt: string }
  | { channel: 'bank_statement'; statementId: string; entryRef: string }
  | { channel: 'card'; acquirer: string; authorisationId: string }
  | { channel: 'provider_account'; account: string };

/**
 * An office payment or a cash collection (cash desk), or a credit found on a bank statement; the
 * payer's side gives STAN/BCODE and says where the money came from.
 */
export const payObligationUpdate = defineUpdate<
  ObligationOutcome,
  [{ stan: string; bcode: string; source: SettlementSource }]
>('payObligation');
/**
 * Pre-authorisation (HELD, its card authorised at the acquirer): capture `amountMinor` (at most the held
 * amount; the acquirer refuses more too) → PAID with the capture's STAN and the approval code as BCODE.
 */
export const finalizeHoldUpdate = defineUpdate<ObligationOutcome, [{ amountMinor: number }]>('finalizeHold');
/** Pre-authorisation: void the hold at the acquirer (when the card authorised one) → REVERSED. */
export const reverseHoldUpdate = defineUpdate<ObligationOutcome>('reverseHold');
/** GET /v3main: a new expiry for an open obligation. */
export const changeExpiryUpdate = defineUpdate<ObligationOutcome, [{ expiresAt: string }]>('changeExpiry');

// --- card payment: the hosted card page's decision on an online_payment obligation ---------------

/**
 * The customer's decision on the hosted card page (POST / PAGE=credit_paydirect or credit_preauth),
 * sent to the obligation workflow `collect-<idn>` of a PENDING `online_payment` or `preauth`:
 * - `approved`: the acquirer authorised (holds) `amountMinor` on the card as `authorisationId`. An
 *   online payment captures it at once (activity captureCard) → PAID with the capture's STAN and the
 *   approval code as BCODE; a pre-authorisation becomes HELD until FINALIZE, REVERSE or its expiry;
 * - `declined`: the acquirer refused the card or its 3-D Secure check failed → DENIED;
 * - `cancelled`: the customer refused to pay (Cancel) → DENIED.
 * The obligation workflow validates it (refused like any other Update otherwise) and notifies the
 * merchant of the final state.
 */
export type CardPaymentDecision =
  | {
      outcome: 'approved';
      acquirer: string;
      authorisationId: string;
      amountMinor: number;
      /** SAVECARD=1: the acquirer stored the card with this authorisation; the workflow saves it. */
      saveCard?: boolean | undefined;
    }
  | { outcome: 'declined'; reason: string }
  | { outcome: 'cancelled' };

export const cardPaymentUpdate = defineUpdate<ObligationOutcome, [CardPaymentDecision]>('cardPayment');

/**
 * GET /card/charge.cgi (decision 0045): a `card_charge` obligation charges its saved card on its own
 * (merchant-initiated authorisation, then capture); this Update waits for the outcome (PAID or DENIED),
 * starting the charge again when the last attempt could not reach the acquirer. Refused with
 * UNAVAILABLE when this attempt could not reach it either.
 */
export const chargeCardUpdate = defineUpdate<ObligationOutcome>('chargeCard');

// --- merchant-notifications: merchant-notifications-<min> ----------------------------------------

/** A status change to notify to the merchant (notifyMerchant, workflows/collect/merchant-notifications.ts). */
export interface MerchantNotification {
  merchantMin: string;
  invoice: string;
  idn: string;
  /** REVERSED: a payment taken back by the bank (decision 0063); the obligation is unpaid again. */
  status: 'PAID' | 'DENIED' | 'EXPIRED' | 'SAVED' | 'REVERSED';
  /** How many payments of the obligation had been taken back before this change (0: none; decision 0063). */
  round?: number;
  payTime?: string /* YYYYMMDDhhmmss */;
  stan?: string;
  bcode?: string;
  amountMinor?: number;
  /** SAVECARD=1: the card saved by this INVOICE (CARD_TOKEN, CARD_BRAND, CARD_LAST4, CARD_EXP). */
  savedCard?: SavedCardView;
}

/** Business id as workflow id: one delivery process per merchant. */
export const merchantNotificationsWorkflowId = (merchantMin: string) =>
  `${COLLECT_WORKFLOW_PREFIXES.merchantNotifications}${merchantMin}`;

/** A notification waiting in the merchant's delivery workflow (carried over continue-as-new). */
export interface PendingNotification {
  notificationId: string;
  invoice: string;
  failedAttempts: number;
  /** Workflow time (ms) of the next attempt. */
  dueAt: number;
}

export interface MerchantNotificationsInput {
  merchantMin: string;
  /** Delays after each failed attempt; when they run out the notification has failed. */
  retryScheduleMs: number[];
  requestTimeoutMs: number;
  /** A fresh notification waits this long, and notifications due within it go in the same POST. */
  batchWindowMs: number;
  batchSize: number;
  /** Carried over continue-as-new. */
  pending: PendingNotification[];
}

/** A status change recorded for the merchant (see queueMerchantNotification). */
export const notificationQueuedSignal =
  defineSignal<[{ notificationId: string; invoice: string }]>('notificationQueued');

// --- billing: billing-<idn>-<tid> ----------------------------------------------------------------

export const billingWorkflowId = (idn: string, tid: string) =>
  `${COLLECT_WORKFLOW_PREFIXES.billing}${idn}-${tid}`;

/** One office payment of a billing IDN, as the billing activities see it. */
export interface BillingPaymentStart {
  tid: string;
  idn: string;
  merchantMin: string;
  action: 'PAY' | 'CHECK';
  date: string;
  /**
   * PAY at a cash desk: where the money is. Posted to the ledger (desk cash → merchant, in BGN: the
   * billing protocol has no currency) when the office takes the money; without it nothing is posted.
   */
  source?: SettlementSource | undefined;
}

export interface BillingPaymentInput extends BillingPaymentStart {
  /** How long the office waits for /pay/init while the merchant answers 80 or is unreachable. */
  checkTimeoutMs: number;
  requestTimeoutMs: number;
  /** Delays after each failed /pay/confirm; when they run out the confirmation has failed. */
  retryScheduleMs: number[];
}

/** What the office learns from the check, answered to the office payment request. */
export type BillingCheckOutcome =
  | {
      result: 'ok';
      code: BillingCode;
      amountMinor: number;
      shortDesc?: string | undefined;
      invoices?: string | undefined;
    }
  /** The merchant answered a final code other than 00/94 (13, 14, 62, 93, 96). */
  | { result: 'refused'; code: BillingCode }
  /** Code 80 or no usable answer until COLLECT_BILLING_CHECK_TIMEOUT. */
  | { result: 'unavailable'; error: string }
  /** 00/94 without a positive AMOUNT: nothing can be paid. */
  | { result: 'invalid_reply'; code: BillingCode; error: string };

/** The office's request/response step: resolves once /pay/init has been answered. */
export const billingCheckedUpdate = defineUpdate<BillingCheckOutcome>('billingChecked');

// --- statement import: statement-import-<statementId> --------------------------------------------

/** The import of one bank statement; its input and summary are in domain/collect/statement-matching.ts. */
export const statementImportWorkflowId = (statementId: string) =>
  `${COLLECT_WORKFLOW_PREFIXES.statementImport}${statementId}`;
