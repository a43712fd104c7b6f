/**
 * Rules of payment initiation shared by single payments (workflows/openbanking/payment.ts) and bulk
 * payments: kinds, the gateway's states, the mapping from the bank's Berlin Group transaction status,
 * amounts in minor units. Pure and light: no I/O and no schema library, safe to import from workflows (the
 * request fields' schemas live in payment-orders.ts, out of the workflow bundle).
 * Decision 0033 (docs/decisions/0033-payment-initiation.md) explains the choices.
 */

/**
 * What a payment is created from:
 *   iban            POST payment/iban: from an added account (ibanId), to a creditor IBAN
 *   direct          POST payment/direct, payment/direct-initiate: from a debtor IBAN the user names, no consent
 *   budget          POST budget-request: from an added account, with budget details
 *   budget_no_iban  POST budget-request/no-iban: from a debtor IBAN the user names, with budget details
 */
export const PAYMENT_KINDS = ['iban', 'direct', 'budget', 'budget_no_iban'] as const;
export type PaymentKind = (typeof PAYMENT_KINDS)[number];

/** The spec's payment status (what the API answers and the last-updated search filters by). */
export const PAYMENT_STATUSES = ['WAITING', 'CONFIRMED', 'FAILED'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/**
 * The gateway's finer state of a payment (ob_payments.state), and the spec status of each:
 *
 *   CREATED ─ confirm (POST/PUT payment) ─→ INITIATED (the bank has it; SCA started) ─→ AWAITING_SCA
 *   AWAITING_SCA ─┬─ the bank says the SCA is done ─→ EXECUTING ─→ EXECUTED (ACSC/ACCC...) | REJECTED (RJCT)
 *                 ├─ the user denied / SCA failed ───────────────→ REJECTED
 *                 └─ no SCA within OPENBANKING_SCA_TIMEOUT ───────→ EXPIRED
 *   CREATED ─ not confirmed within OPENBANKING_PAYMENT_CONFIRMATION_TIMEOUT ─→ EXPIRED
 *   any open state ─ the bank could not be reached / refused the initiation ─→ FAILED
 *   any open state ─ the user cancelled it (DELETE payment/{code}; the bank agreed, after its own SCA
 *                    for the cancellation when it wants one) ─→ CANCELLED (design, decision 0070)
 *
 * WAITING: CREATED, INITIATED, AWAITING_SCA, EXECUTING; CONFIRMED: EXECUTED;
 * FAILED: REJECTED, EXPIRED, FAILED, CANCELLED (the spec's statuses have no cancelled one; the bank's
 * CANC is FAILED too).
 */
export const PAYMENT_STATES = [
  'CREATED',
  'INITIATED',
  'AWAITING_SCA',
  'EXECUTING',
  'EXECUTED',
  'REJECTED',
  'EXPIRED',
  'FAILED',
  'CANCELLED',
] as const;
export type PaymentState = (typeof PAYMENT_STATES)[number];

export const FINAL_PAYMENT_STATES: readonly PaymentState[] = [
  'EXECUTED',
  'REJECTED',
  'EXPIRED',
  'FAILED',
  'CANCELLED',
];

export function statusOfState(state: PaymentState): PaymentStatus {
  if (state === 'EXECUTED') return 'CONFIRMED';
  return FINAL_PAYMENT_STATES.includes(state) ? 'FAILED' : 'WAITING';
}

/**
 * Where the bank sends the browser back after a cancellation's own SCA (decision 0070): the payment's
 * own callback, marked, so the gateway tells it from the payment's SCA ending.
 */
export const CANCELLATION_CALLBACK_MARK = 'cancellation';
export const cancellationCallbackUrlsOf = (redirectUri: string) => ({
  redirectUri: `${redirectUri}?sca=${CANCELLATION_CALLBACK_MARK}`,
  nokRedirectUri: `${redirectUri}?sca=${CANCELLATION_CALLBACK_MARK}&outcome=nok`,
});

/** Berlin Group 1.3 transactionStatus values (ISO 20022 codes). */
export const TRANSACTION_STATUSES = [
  'ACCC',
  'ACCP',
  'ACSC',
  'ACSP',
  'ACTC',
  'ACWC',
  'ACWP',
  'ACFC',
  'RCVD',
  'PDNG',
  'PATC',
  'PART',
  'RJCT',
  'CANC',
] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

export const isTransactionStatus = (value: unknown): value is TransactionStatus =>
  typeof value === 'string' && (TRANSACTION_STATUSES as readonly string[]).includes(value);

/**
 * The spec status a bank's transactionStatus means:
 *   CONFIRMED  ACSC (settled on the debtor's account), ACCC (settled on the creditor's): the money moved;
 *   FAILED     RJCT (rejected), CANC (cancelled);
 *   WAITING    everything before settlement: RCVD, PDNG, ACTC, ACCP, ACSP, ACWC, ACWP, ACFC, PATC, PART.
 * ACSP ("settlement in process") and ACFC ("funds checked") are accepted but the money has not moved:
 * a payment is CONFIRMED only once the bank says it settled.
 */
export function statusOfTransaction(status: TransactionStatus): PaymentStatus {
  switch (status) {
    case 'ACSC':
    case 'ACCC':
      return 'CONFIRMED';
    case 'RJCT':
    case 'CANC':
      return 'FAILED';
    default:
      return 'WAITING';
  }
}

/** The payment state a bank's transactionStatus moves an authorised payment to. */
export function stateOfTransaction(status: TransactionStatus): PaymentState {
  const status_ = statusOfTransaction(status);
  return status_ === 'CONFIRMED' ? 'EXECUTED' : status_ === 'FAILED' ? 'REJECTED' : 'EXECUTING';
}

// ─── Amounts ─────────────────────────────────────────────────────────────────────────────────────

/** "12.50" → 1250 (two decimals: the currencies the sandbox banks hold). */
export const minorOf = (amount: string): number => {
  const [units = '0', cents = ''] = amount.replace(/^-/, '').split('.');
  const value = Number(units) * 100 + Number(cents.padEnd(2, '0').slice(0, 2));
  return amount.startsWith('-') ? -value : value;
};

/** 1250 → "12.50", as XS2A writes amounts. */
export const decimalOf = (minor: number): string => {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
};

// ─── SCA ─────────────────────────────────────────────────────────────────────────────────────────

/** How the user authenticates a payment at the bank. */
export const PAYMENT_SCA_METHODS = ['REDIRECT', 'EMBEDDED_SMS_OTP', 'DECOUPLED'] as const;
export type PaymentScaMethod = (typeof PAYMENT_SCA_METHODS)[number];

/** Payment code: `pay_` + 32 hex; the payment's business id (workflow `ob-payment-<code>`). */
export const PAYMENT_CODE_PATTERN = /^pay_[0-9a-f]{32}$/;
/** A one-time code the bank sent by SMS. */
export const SMS_CODE_PATTERN = /^[0-9]{4,8}$/;
