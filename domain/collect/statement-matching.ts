import { type ObligationKind, ObligationRefusal, officePayableKinds } from './obligation.ts';

/**
 * How a bank statement's credits settle obligations (decision 0031). Pure (no I/O).
 *
 * A credit settles an obligation when its remittance information names the obligation's IDN, the
 * obligation is open and of a kind a bank transfer pays, and amount and currency are exactly the
 * obligation's. The first such credit (in statement order; across statements, the first to reach the
 * obligation's workflow) settles it; every other credit goes to the review list with its reason.
 * No Node built-ins here: the import workflow uses this module.
 *
 *   received → matched → settled            (the obligation's workflow took the payment)
 *   received → review  → resolved           (an operator settled it by hand or dismissed it)
 *   matched  → review                       (the workflow refused: paid meanwhile, expired, ...)
 *
 * A reversal (RvslInd) of a credit that settled an obligation (decision 0063):
 *   reversing → reversed                    (the obligation's workflow took the payment back; the
 *                                            reversed credit is `reversed` too)
 *   reversing → review (credit_reversed)    (the obligation was not paid by it any more)
 */

export const statementCreditStates = [
  'received',
  'matched',
  'settled',
  'review',
  'resolved',
  'reversing',
  'reversed',
] as const;
export type StatementCreditState = (typeof statementCreditStates)[number];

/**
 * Problems of one entry, found when the statement is read (domain/collect/statement.ts): the entry
 * goes to the review list and the statement's other credits are imported (decision 0053).
 */
export const entryProblemCodes = [
  'zero_amount',
  'unreadable_entry',
  'duplicate_entry',
  'returned_payment',
  'reversal',
  'credit_reversed',
] as const;
export type EntryProblem = (typeof entryProblemCodes)[number];

export const reviewReasonCodes = [
  'no_idn',
  'ambiguous_idn',
  'unknown_idn',
  'wrong_kind',
  'currency_differs',
  'amount_differs',
  'duplicate_credit',
  'obligation_paid',
  'obligation_expired',
  'obligation_closed',
  ...entryProblemCodes,
] as const;
export type ReviewReason = (typeof reviewReasonCodes)[number];

/** Why a credit is in the review list, as the operator reads it. */
export const reviewReasons: Record<ReviewReason, string> = {
  no_idn: 'the remittance information holds no 10-digit IDN',
  ambiguous_idn: 'the remittance information holds several different 10-digit numbers',
  unknown_idn: 'no obligation has this IDN',
  wrong_kind: 'the obligation is not paid by bank transfer (only bank_transfer, deposit_slip, office_bill)',
  currency_differs: 'the currency differs from the obligation’s',
  amount_differs: 'partly matched: the IDN is known but the amount differs from the obligation’s',
  duplicate_credit: 'another credit already settled (or is settling) this obligation',
  obligation_paid: 'the obligation was paid already, by another channel',
  obligation_expired: 'the obligation has expired',
  obligation_closed: 'the obligation is closed (reversed or denied)',
  zero_amount: 'the credit’s amount is zero',
  unreadable_entry: 'the entry cannot be read (see the detail: which element, what is wrong)',
  duplicate_entry: 'the bank reference occurs more than once in the statement',
  returned_payment: 'a payment of the gateway’s that came back (RtrInf), not a customer’s payment',
  reversal: 'a reversal (RvslInd) of an earlier debit, not a customer’s payment',
  credit_reversed:
    'the bank reversed (RvslInd) an earlier credit, and no payment of it could be taken back (see the detail: no such credit, it settled nothing, or the obligation is no longer paid by it)',
};

/** Kinds a credit on the gateway's account settles. */
export const statementSettledKinds: readonly ObligationKind[] = officePayableKinds;

/** The review reason of a refusal by the obligation workflow's payObligation validator. */
export function reviewReasonOfRefusal(type: string | undefined): ReviewReason {
  switch (type) {
    case ObligationRefusal.alreadyPaid:
      return 'obligation_paid';
    case ObligationRefusal.expired:
      return 'obligation_expired';
    case ObligationRefusal.wrongKind:
      return 'wrong_kind';
    default:
      return 'obligation_closed';
  }
}

/** The Update id of a credit's payObligation: Temporal answers a repeated one with the first outcome. */
export const statementPaymentUpdateId = (creditId: number) => `statement-credit-${creditId}`;

// --- the import process: statement-import-<statementId> -------------------------------------------

// Its workflow id is statementImportWorkflowId in domain/collect/processes.ts.

export interface StatementImportInput {
  statementId: string;
}

/** What a statement import ends with (also GET /admin/collect/statements/{id}). */
export interface StatementImportSummary {
  statementId: string;
  credits: number;
  settled: number;
  review: number;
  /** Reversals that took an earlier credit's payment back (decision 0063). */
  reversed?: number;
}
