import { electronicFormatIBAN, isValidIBAN } from 'ibantools';
import { z } from 'zod';

/**
 * Rules of payment initiation shared by single payments (workflows/openbanking/payment.ts) and bulk
 * payments: kinds, the gateway's states, the mapping from the bank's Berlin Group transaction status,
 * amounts in minor units, and the budget-payment fields. Pure: no I/O, safe to import from workflows.
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
 *
 * WAITING: CREATED, INITIATED, AWAITING_SCA, EXECUTING; CONFIRMED: EXECUTED;
 * FAILED: REJECTED, EXPIRED, FAILED.
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
] as const;
export type PaymentState = (typeof PAYMENT_STATES)[number];

export const FINAL_PAYMENT_STATES: readonly PaymentState[] = ['EXECUTED', 'REJECTED', 'EXPIRED', 'FAILED'];

export function statusOfState(state: PaymentState): PaymentStatus {
  if (state === 'EXECUTED') return 'CONFIRMED';
  if (state === 'REJECTED' || state === 'EXPIRED' || state === 'FAILED') return 'FAILED';
  return 'WAITING';
}

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

// ─── Request fields shared by single and bulk payments ──────────────────────────────────────────

export const IBAN_MESSAGE = 'not a valid IBAN';
export const ibanSchema = z
  .string()
  .max(64)
  .transform((value) => electronicFormatIBAN(value) ?? value)
  .refine((value) => isValidIBAN(value), IBAN_MESSAGE);

export const AMOUNT_MESSAGE = 'a positive decimal with at most two decimals, e.g. "12.50"';
export const amountSchema = z
  .string()
  .regex(/^\d{1,12}(\.\d{1,2})?$/, AMOUNT_MESSAGE)
  .refine((amount) => minorOf(amount) > 0, AMOUNT_MESSAGE);

export const currencySchema = z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code, e.g. "BGN"');

/** The creditor and the money: every payment carries these. */
export const paymentOrderSchema = z.object({
  creditorIban: ibanSchema,
  creditorName: z.string().trim().min(1).max(70),
  amount: amountSchema,
  currency: currencySchema,
  remittanceInformation: z.string().trim().min(1).max(140).optional(),
});

// ─── Budget payments (the spec's constants) ─────────────────────────────────────────────────────

/** regulatoryReportType: 1 declaration; 2 inspection act; 3 penalty decree; 4 advance payment;
 * 5 batch property number; 6 enforced collection order; 9 others. */
export const REGULATORY_REPORT_TYPES = ['1', '2', '3', '4', '5', '6', '9'] as const;
export type RegulatoryReportType = (typeof REGULATORY_REPORT_TYPES)[number];

export const REGULATORY_REPORT_TYPE_MESSAGE = 'must be one of 1, 2, 3, 4, 5, 6, 9';
/** The spec writes `^[0-9]{6}?$`: six digits (the `?` makes the sixth optional in a regex; we require six). */
export const PAYMENT_CATEGORY_PATTERN = /^[0-9]{6}$/;
export const PAYMENT_CATEGORY_MESSAGE = 'must be exactly six digits';

/** Accepts 1 or "1". */
export const regulatoryReportTypeSchema = z
  .union([z.string(), z.number()])
  .transform((value) => String(value))
  .refine(
    (value): value is RegulatoryReportType => (REGULATORY_REPORT_TYPES as readonly string[]).includes(value),
    REGULATORY_REPORT_TYPE_MESSAGE,
  )
  .transform((value) => value as RegulatoryReportType);

export const paymentCategorySchema = z.string().regex(PAYMENT_CATEGORY_PATTERN, PAYMENT_CATEGORY_MESSAGE);

/** The budget details of a budget payment (single or a bulk entry). */
export const budgetDetailsSchema = z.object({
  regulatoryReportType: regulatoryReportTypeSchema,
  paymentCategory: paymentCategorySchema,
  /** The number of the document the payment is about (declaration number, act number...). */
  documentNumber: z.string().trim().min(1).max(35).optional(),
  /** YYYY-MM-DD */
  documentDate: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
    .optional(),
  /** The obligor's UIC / personal number, when not the debtor. */
  obligorId: z.string().trim().min(1).max(20).optional(),
  obligorName: z.string().trim().min(1).max(70).optional(),
});
export type BudgetDetails = z.infer<typeof budgetDetailsSchema>;

/**
 * How budget details travel to the bank (documented in docs/openbanking.md, "Payment initiation"):
 * Berlin Group 1.3 has no budget fields, so they go in `remittanceInformationStructured` as
 * `{ reference: "<category>", referenceType: "BGBUDGET", referenceIssuer: "<report type>" }` and, for
 * people, in `remittanceInformationUnstructured` as `BUDGET/<type>/<category>[/<doc>/<date>] <text>`.
 */
export function budgetRemittance(details: BudgetDetails, text: string | undefined) {
  const parts = [details.regulatoryReportType, details.paymentCategory];
  if (details.documentNumber) parts.push(details.documentNumber);
  if (details.documentDate) parts.push(details.documentDate);
  const prefix = `BUDGET/${parts.join('/')}`;
  return {
    structured: {
      reference: details.paymentCategory,
      referenceType: 'BGBUDGET',
      referenceIssuer: details.regulatoryReportType,
    },
    unstructured: (text ? `${prefix} ${text}` : prefix).slice(0, 140),
  };
}

// ─── SCA ─────────────────────────────────────────────────────────────────────────────────────────

/** How the user authenticates a payment at the bank. */
export const PAYMENT_SCA_METHODS = ['REDIRECT', 'EMBEDDED_SMS_OTP', 'DECOUPLED'] as const;
export type PaymentScaMethod = (typeof PAYMENT_SCA_METHODS)[number];

/** Payment code: `pay_` + 32 hex; the payment's business id (workflow `ob-payment-<code>`). */
export const PAYMENT_CODE_PATTERN = /^pay_[0-9a-f]{32}$/;
/** A one-time code the bank sent by SMS. */
export const SMS_CODE_PATTERN = /^[0-9]{4,8}$/;
