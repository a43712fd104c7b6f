import { defineSignal, defineUpdate } from '@temporalio/workflow';
import { Decimal } from 'decimal.js';
import type { BidRequest, LoanBids } from './bids.ts';
import type { LoanPayout, PayoutRecipient } from './disbursement.ts';
import type { LoanStatus } from './loan-lifecycle.ts';
import type { RepaymentSubmission, SubmissionRequest } from './repayment-submissions.ts';
import type { LoanServicing, RepaymentMode } from './servicing.ts';

/**
 * The loan process as its callers (API, tests) see it: the workflow id, what crosses the boundary, and
 * the Updates (each validated by the workflow against domain/lending/loan-lifecycle.ts). The workflow is
 * workflows/lending/loan.ts (its phases in workflows/lending/loan/); its read model db/schema/lending-loans.ts.
 */

/** Business id as workflow id: one workflow per loan of a tenant. */
export const loanWorkflowId = (tenantId: string, loanId: string) => `lending-loan-${tenantId}-${loanId}`;

/** Who moved a loan (recorded in its status history). */
export interface LoanActor {
  role: 'customer' | 'management' | 'system';
  /** The customer's user id; none for management keys and the system. */
  id?: string | undefined;
}

/** What the customer applied for (domain/lending/credit-products.ts LoanTerms adds the start date). */
export interface AppliedTerms {
  /** The credit product's Name (a promo code is resolved to its product by the API). */
  productName: string;
  /** The promo code the customer named instead of the Name, if any (its discount applies). */
  promoCode?: string | undefined;
  /** Decimal string in the product's currency, its minor-unit digits, e.g. `1500.00`. */
  amount: string;
  /** Number of monthly instalments. */
  term: number;
}

export interface LoanOffer {
  offerId: string;
  amount: string;
  term: number;
  productName: string;
}

export interface LoanCollateral {
  collateralId: string;
  /** E.g. vehicle, real estate, deposit. */
  kind: string;
  description: string;
  /** Estimated value, decimal string. */
  value: string;
}

export interface LoanCoApplicant {
  firstName: string;
  lastName: string;
  birthDate?: string | undefined;
  ssn?: string | undefined;
  email?: string | undefined;
  phone?: string | undefined;
  relationship?: string | undefined;
}

/** What the credit bureau is asked about (read from the customer's details by the API at Process). */
export interface BureauApplicant {
  firstName: string;
  lastName: string;
  ssn?: string | undefined;
  birthDate?: string | undefined;
}

/** The bureau's answer as the loan keeps it. */
export interface LoanDecision {
  outcome: 'approve' | 'decline' | 'refer' | 'unavailable';
  /** The bureau's reference of the check; none when it did not answer. */
  reference?: string | undefined;
  score?: number | undefined;
  reasons: string[];
  at: string;
}

export interface LoanDisbursement {
  amount: string;
  /** ISO date (YYYY-MM-DD) the money was paid out. */
  date: string;
}

/** The loan as the workflow holds it and its activities record it (the read model's row). */
export interface LoanSnapshot {
  tenantId: string;
  loanId: string;
  customerId: string;
  productName: string;
  promoCode: string | null;
  currency: string;
  amount: string;
  term: number;
  secured: boolean;
  status: LoanStatus;
  offers: LoanOffer[];
  acceptedOfferId: string | null;
  /** The tenant's multiple-offers feature was on when the loan was decided. */
  multipleOffers: boolean;
  collaterals: LoanCollateral[];
  coApplicant: LoanCoApplicant | null;
  rolloverRequested: boolean;
  autocharge: boolean;
  autochargeComment: string | null;
  decision: LoanDecision | null;
  disbursement: LoanDisbursement | null;
  /** The cash payout of the latest IssueDisbursement (decision 0041); none before the first. */
  payout?: LoanPayout | null | undefined;
  /** Servicing from the disbursement on: schedule, repayments, position (decision 0043). */
  servicing?: LoanServicing | null | undefined;
  /** Repayments submitted through the collection gateway and auto-charges (decision 0045). */
  submissions?: RepaymentSubmission[] | undefined;
  /**
   * Instalments whose due date auto-charge has handled (charged, declined, or due before it was
   * enabled): each is charged at most once.
   */
  autochargeHandled?: number[] | undefined;
  /** Investors' bids and, from the disbursement on, investments (decision 0052); none before the first bid. */
  funding?: LoanBids | undefined;
  /** Grows with every recorded change: the read model keeps the highest. */
  version: number;
}

/** One entry of a loan's status history. */
export interface LoanStatusChange {
  status: LoanStatus;
  at: string;
  by: LoanActor;
  comments?: string | undefined;
  reasonId?: string | undefined;
}

export interface LoanInput {
  tenantId: string;
  loanId: string;
  customerId: string;
  terms: AppliedTerms;
  currency: string;
  secured: boolean;
  /** The first status (loan-lifecycle.ts initialStatusOf), decided by the API from the customer and the disbursement. */
  status: LoanStatus;
  createdBy: LoanActor;
  comments?: string | undefined;
  /** The tenant's multiple-offers feature at creation. */
  multipleOffers: boolean;
  /** Management create with one disbursement. */
  disbursement?: LoanDisbursement | undefined;
  /** The credit bureau: each attempt's time limit and how many attempts before the loan is referred. */
  bureau: { requestTimeoutMs: number; attempts: number };
  /** Management create with one disbursement: what the borrower repaid before (an opening repayment). */
  repaidAmount?: string | undefined;
  /** Servicing settings (decision 0043); defaults: no grace days, a 30-day reversal window. */
  servicing?: LoanServicingSettings | undefined;
  /** Continue-as-new: the loan as it was when its previous run handed over (nothing is recorded again). */
  continued?: { loan: LoanSnapshot; collateralsAdded: number } | undefined;
}

export interface LoanServicingSettings {
  /** LENDING_GRACE_PERIOD (ms): after the end of a due date, before an unpaid instalment makes the loan Past Due. */
  graceMs: number;
  /** LENDING_REPAID_REVERSAL_WINDOW: how long a Repaid loan's workflow still accepts repayment corrections. */
  reversalWindowMs: number;
  /** History events after which a serviced loan continues as new (also when Temporal suggests it). */
  historyLimit?: number | undefined;
  /** LENDING_AUTOCHARGE_TIME (ms after 00:00 UTC of a due date): when auto-charge charges it; default 0. */
  autochargeAtMs?: number | undefined;
}
export const defaultServicingSettings: LoanServicingSettings = {
  graceMs: 0,
  reversalWindowMs: 30 * 86_400_000,
};

// --- Updates (each answers the loan as recorded) ---------------------------------------------------

/** The first Update of a loan (Update-with-Start): answers once the application is on record. */
export const loanCreatedUpdate = defineUpdate<LoanSnapshot>('loanCreated');
/** The customer's details became complete: Pre-Origination → Origination. */
export const detailsCompletedUpdate = defineUpdate<LoanSnapshot>('detailsCompleted');
/**
 * Process: answers once the loan is in Collateral, or once the request for the bureau's decision is
 * recorded (the decision follows in the read model; loans that ran before the patch
 * `lending-process-answers-at-once` answer once the decision is recorded).
 */
export const processUpdate = defineUpdate<
  LoanSnapshot,
  [{ by: LoanActor; comments?: string | undefined; applicant: BureauApplicant }]
>('process');
export const acceptOfferUpdate = defineUpdate<
  LoanSnapshot,
  [{ by: LoanActor; offerId?: string | undefined }]
>('acceptOffer');
export const declineOfferUpdate = defineUpdate<LoanSnapshot, [{ by: LoanActor }]>('declineOffer');
/**
 * Approve; `documentsSigned`: the API found every system document of the accepted offer signed (the
 * signatures are the API's records, decision 0040), without which an accepted offer is not approved;
 * `requiredDocumentsAttached`: every document group the product requires has a file of the customer
 * (UserDocuments; left out by earlier versions: taken as attached).
 */
export const approveUpdate = defineUpdate<
  LoanSnapshot,
  [
    {
      by: LoanActor;
      comments?: string | undefined;
      documentsSigned?: boolean | undefined;
      requiredDocumentsAttached?: boolean | undefined;
    },
  ]
>('approve');
export const registerDisbursementUpdate = defineUpdate<
  LoanSnapshot,
  [{ by: LoanActor; disbursement: LoanDisbursement }]
>('registerDisbursement');
/** IssueDisbursement: answers once the cash payout is registered at the collection gateway (decision 0041). */
export const issueDisbursementUpdate = defineUpdate<
  LoanSnapshot,
  [{ by: LoanActor; amount: string; recipient: PayoutRecipient }]
>('issueDisbursement');
/**
 * A notification line of the collection gateway about the loan's payout, verified by the receiver
 * (application/lending/collect-notifications.ts). A Signal: Temporal keeps it while no worker runs, and the
 * workflow ignores a repeated one and one about another attempt's INVOICE.
 */
export const payoutNotificationSignal =
  defineSignal<[{ invoice: string; status: string; payTime?: string | undefined }]>('payoutNotification');
/**
 * SignDocument recorded a signature (outside the workflow, decision 0040): a hint, without personal data,
 * to announce it (`loan.document_signed`, decision 0088). Sent after the signature's commit, so it can be
 * lost in a crash: the workflow also catches up on its next change (Approve needs every signature).
 */
export const documentSignedSignal = defineSignal('documentSigned');
export const cancelUpdate = defineUpdate<
  LoanSnapshot,
  [{ by: LoanActor; reasonId: string; comments?: string | undefined }]
>('cancel');
/** New terms (the API has resolved the product: its Name and whether it is secured). */
export const updateLoanDetailsUpdate = defineUpdate<
  LoanSnapshot,
  [{ by: LoanActor; terms: AppliedTerms; secured: boolean; currency: string }]
>('updateLoanDetails');
export const addCollateralUpdate = defineUpdate<
  LoanSnapshot,
  [{ by: LoanActor; collateral: Omit<LoanCollateral, 'collateralId'> }]
>('addCollateral');
export const updateCollateralUpdate = defineUpdate<
  LoanSnapshot,
  [{ by: LoanActor; collateral: LoanCollateral }]
>('updateCollateral');
export const deleteCollateralUpdate = defineUpdate<LoanSnapshot, [{ by: LoanActor; collateralId: string }]>(
  'deleteCollateral',
);
export const updateCoApplicantUpdate = defineUpdate<
  LoanSnapshot,
  [{ by: LoanActor; coApplicant: LoanCoApplicant }]
>('updateCoApplicant');
export const requestRolloverUpdate = defineUpdate<LoanSnapshot, [{ by: LoanActor }]>('requestRollover');
export const cancelRolloverUpdate = defineUpdate<LoanSnapshot, [{ by: LoanActor }]>('cancelRollover');
export const setAutochargeUpdate = defineUpdate<
  LoanSnapshot,
  [{ by: LoanActor; enabled: boolean; comment?: string | undefined }]
>('setAutocharge');

/** A repayment as management registers or edits it (the id is the API's, unique per tenant). */
export interface RepaymentRequest {
  repaymentId: string;
  amount: string;
  date: string;
  mode: RepaymentMode;
  reference?: string | undefined;
}
/** Management/Loans/Repayments: answers the loan with the repayment applied (or the one of its reference). */
export const registerRepaymentUpdate = defineUpdate<
  LoanSnapshot,
  [{ by: LoanActor; repayment: RepaymentRequest }]
>('registerRepayment');
export const editRepaymentUpdate = defineUpdate<
  LoanSnapshot,
  [{ by: LoanActor; repayment: Omit<RepaymentRequest, 'reference'> }]
>('editRepayment');
/** An investor's bid: submit, change its amount, or withdraw it (decision 0052; workflows/lending/loan/bids.ts). */
export const bidUpdate = defineUpdate<LoanSnapshot, [{ bid: BidRequest }]>('bid');
export const reverseRepaymentUpdate = defineUpdate<LoanSnapshot, [{ by: LoanActor; repaymentId: string }]>(
  'reverseRepayment',
);
/**
 * SubmitRepayment (decision 0045): a card charge (answers once the gateway has answered) or a deposit
 * slip (answers once registered), each within 20 s; the loan as recorded, with the submission.
 */
export const submitRepaymentUpdate = defineUpdate<
  LoanSnapshot,
  [{ by: LoanActor; submission: SubmissionRequest }]
>('submitRepayment');
/**
 * A notification line of the collection gateway about a submission's INVOICE (`LR-…`), verified by the
 * receiver. PAID books the repayment once (its INVOICE is the reference); DENIED or EXPIRED closes it.
 */
export const repaymentNotificationSignal =
  defineSignal<[{ invoice: string; status: string; payTime?: string | undefined }]>('repaymentNotification');

// --- amounts ----------------------------------------------------------------------------------------

/** Equal amounts, whatever their notation (`1500` and `1500.00`); false when either is not an amount. */
export function sameAmount(a: string, b: string): boolean {
  try {
    return new Decimal(a).eq(b);
  } catch {
    return false;
  }
}

/**
 * The offers of an approved loan: the terms applied for; with the tenant's multiple-offers feature, also
 * 80% of the amount (whole units) at the same term, a smaller commitment the customer may prefer.
 */
export function offersOf(loanId: string, terms: AppliedTerms, multipleOffers: boolean): LoanOffer[] {
  const first: LoanOffer = {
    offerId: `${loanId}-1`,
    productName: terms.productName,
    amount: terms.amount,
    term: terms.term,
  };
  if (!multipleOffers) return [first];
  const smaller = new Decimal(terms.amount).mul(0.8).floor();
  if (smaller.lte(0)) return [first];
  // In the notation of the amount applied for (its currency's minor-unit digits).
  const digits = terms.amount.split('.')[1]?.length ?? 0;
  return [first, { ...first, offerId: `${loanId}-2`, amount: smaller.toFixed(digits) }];
}

/**
 * Where a loan created with one disbursement stands (the `createWithDisbursement` rows): repaid when the
 * amount repaid covers the whole schedule; overdue when it does not cover what fell due before `today`.
 */
export function schedulePosition(
  instalments: readonly { dueDate: string; total: string }[],
  repaid: string,
  today: string,
): 'current' | 'overdue' | 'repaid' {
  const paid = new Decimal(repaid);
  let due = new Decimal(0);
  let total = new Decimal(0);
  for (const instalment of instalments) {
    total = total.plus(instalment.total);
    if (instalment.dueDate < today) due = due.plus(instalment.total);
  }
  if (paid.gte(total)) return 'repaid';
  return paid.lt(due) ? 'overdue' : 'current';
}
