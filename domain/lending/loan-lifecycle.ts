/**
 * The loan lifecycle: the statuses of a loan and ONE transition table, as data. The loan workflow
 * (workflows/lending/loan.ts, its LoanState in workflows/lending/loan/state.ts) moves by it, the API refuses by it (409 `invalid_loan_status` naming the
 * current status), and test/lending/loan-lifecycle-rules.test.ts checks it row by row. Pure (no I/O),
 * safe in workflow code. Which rows are the spec's and which are ours: docs/decisions/0039-loan-lifecycle.md.
 */

/** The spec's statuses (States and transitions), then the closed ones it leaves to us. */
export const loanStatuses = [
  'Pre-Origination',
  'Origination',
  'Reprocessing',
  'Collateral',
  'Offer confirmation',
  'Waiting for approval',
  'Approved',
  'Active',
  'Past Due',
  // Closed: the spec names "rejected, paid off, written off and similar"; Repaid is its paid-off status.
  'Repaid',
  'Rejected',
  'Cancelled',
  'Offer declined',
  'Written off',
] as const;
export type LoanStatus = (typeof loanStatuses)[number];

/** Closed loans: the workflow has ended, and they are left out of the active-loans list. */
export const closedLoanStatuses: readonly LoanStatus[] = [
  'Repaid',
  'Rejected',
  'Cancelled',
  'Offer declined',
  'Written off',
];
export const isClosed = (status: LoanStatus) => closedLoanStatuses.includes(status);
export const openLoanStatuses: readonly LoanStatus[] = loanStatuses.filter((status) => !isClosed(status));

/** Statuses before a decision, where the application is still being put together. */
const APPLICATION: readonly LoanStatus[] = ['Pre-Origination', 'Origination', 'Reprocessing', 'Collateral'];
/** Statuses whose offer or approval rests on the application as it was decided. */
const DECIDED: readonly LoanStatus[] = ['Offer confirmation', 'Waiting for approval'];
/** A loan paid out and being repaid. */
const SERVICED: readonly LoanStatus[] = ['Active', 'Past Due'];

/** What can happen to a loan: the API's operations and the workflow's own events. */
export const loanOperations = [
  'create',
  'createWithDisbursement',
  'detailsCompleted',
  'process',
  'decision',
  'readOffer',
  'readOffers',
  'acceptOffer',
  'declineOffer',
  'approve',
  'signDocument',
  'resendSmsCode',
  'declineDocument',
  'registerDisbursement',
  'issueDisbursement',
  'payoutCollected',
  'payoutExpired',
  'payoutFailed',
  'cancel',
  'updateLoanDetails',
  'changeCollaterals',
  'updateCoApplicant',
  'requestRollover',
  'cancelRollover',
  'enableAutocharge',
  'disableAutocharge',
  'instalmentOverdue',
  'overduePaid',
  'fullyRepaid',
  'writeOff',
  'registerRepayment',
  'correctRepayment',
  'repaymentCorrected',
  'submitRepayment',
  'submittedRepaymentPaid',
  'submittedRepaymentReversed',
  'autocharge',
] as const;
export type LoanOperation = (typeof loanOperations)[number];

/** What a row's condition may look at. */
export interface LoanFacts {
  /** The customer's details are complete (domain/lending/customers.ts customerDetailsComplete). */
  detailsComplete?: boolean;
  /** The loan's credit product is secured. */
  secured?: boolean;
  collateralCount?: number;
  /** The credit bureau's answer, or `unavailable` when it did not answer within the retries. */
  bureau?: 'approve' | 'decline' | 'refer' | 'unavailable';
  /** The customer accepted an offer (Waiting for approval after acceptance, not after a referral). */
  offerAccepted?: boolean;
  /** The tenant's multiple-offers feature was on when the loan was decided. */
  multipleOffers?: boolean;
  /** Every system document of the accepted offer is signed (the API counts them: decision 0040). */
  documentsSigned?: boolean;
  /**
   * Every document group the loan's product requires has a file of the customer (UserDocuments; the API
   * counts them). Unknown (undefined) counts as attached: loans approved before groups existed.
   */
  requiredDocumentsAttached?: boolean;
  /** A disbursement amount equal to the loan amount. */
  amountMatches?: boolean;
  rolloverRequested?: boolean;
  /** Management create with one disbursement: where the loan stands by its schedule and today. */
  schedule?: 'current' | 'overdue' | 'repaid';
}

/** Conditions of the rows, by name (the docs and tests show the names). */
export const loanConditions = {
  detailsIncomplete: (facts: LoanFacts) => facts.detailsComplete !== true,
  detailsComplete: (facts: LoanFacts) => facts.detailsComplete === true,
  unsecured: (facts: LoanFacts) => facts.secured !== true,
  secured: (facts: LoanFacts) => facts.secured === true,
  collateralRegistered: (facts: LoanFacts) => (facts.collateralCount ?? 0) > 0,
  bureauApproves: (facts: LoanFacts) => facts.bureau === 'approve',
  bureauDeclines: (facts: LoanFacts) => facts.bureau === 'decline',
  bureauRefers: (facts: LoanFacts) => facts.bureau === 'refer',
  bureauUnavailable: (facts: LoanFacts) => facts.bureau === 'unavailable',
  multipleOffers: (facts: LoanFacts) => facts.multipleOffers === true,
  offerAccepted: (facts: LoanFacts) => facts.offerAccepted === true,
  offerAcceptedDocumentsComplete: (facts: LoanFacts) =>
    facts.offerAccepted === true &&
    facts.documentsSigned === true &&
    facts.requiredDocumentsAttached !== false,
  referred: (facts: LoanFacts) => facts.offerAccepted !== true,
  amountEqualsLoanAmount: (facts: LoanFacts) => facts.amountMatches === true,
  noRolloverRequested: (facts: LoanFacts) => facts.rolloverRequested !== true,
  rolloverRequested: (facts: LoanFacts) => facts.rolloverRequested === true,
  scheduleCurrent: (facts: LoanFacts) => facts.schedule === 'current',
  instalmentOverdue: (facts: LoanFacts) => facts.schedule === 'overdue',
  scheduleRepaid: (facts: LoanFacts) => facts.schedule === 'repaid',
} as const satisfies Record<string, (facts: LoanFacts) => boolean>;
export type LoanCondition = keyof typeof loanConditions;

/** Where a row comes from: the spec's table, the spec's status with our next status, or our design. */
export type RowBasis = 'spec' | 'spec, next designed' | 'design';

/** The next status of a row: a status, the same status, or the bureau's decision (the `decision` rows). */
export type LoanNext = LoanStatus | 'unchanged' | 'automatic decision';

export interface LoanTransition {
  operation: LoanOperation;
  /** `new`: the loan does not exist yet. */
  from: readonly LoanStatus[] | 'new';
  condition?: LoanCondition;
  next: LoanNext;
  basis: RowBasis;
  /** Who may ask for it (the API route), or the workflow itself. */
  by: 'customer' | 'management' | 'customer or management' | 'workflow';
  note?: string;
}

/** The whole lifecycle, row by row. */
// biome-ignore format: one row a line reads as the table it is
export const loanTransitions: readonly LoanTransition[] = [
  // Creation
  { operation: 'create', from: 'new', condition: 'detailsIncomplete', next: 'Pre-Origination', basis: 'spec', by: 'customer or management' },
  { operation: 'create', from: 'new', condition: 'detailsComplete', next: 'Origination', basis: 'spec', by: 'customer or management' },
  { operation: 'createWithDisbursement', from: 'new', condition: 'scheduleCurrent', next: 'Active', basis: 'spec', by: 'management', note: 'the choice by schedule and date is designed: no instalment overdue' },
  { operation: 'createWithDisbursement', from: 'new', condition: 'instalmentOverdue', next: 'Past Due', basis: 'spec', by: 'management', note: 'an instalment due before today is not covered by the amount repaid' },
  { operation: 'createWithDisbursement', from: 'new', condition: 'scheduleRepaid', next: 'Repaid', basis: 'spec', by: 'management', note: 'the amount repaid covers the whole schedule' },
  { operation: 'detailsCompleted', from: ['Pre-Origination'], next: 'Origination', basis: 'design', by: 'workflow', note: "the customer's details became complete (Customer/Details or Management/Customers PUT)" },
  // Processing and the automatic decision
  { operation: 'process', from: ['Origination', 'Reprocessing'], condition: 'unsecured', next: 'automatic decision', basis: 'spec', by: 'customer or management' },
  { operation: 'process', from: ['Origination', 'Reprocessing'], condition: 'secured', next: 'Collateral', basis: 'spec', by: 'customer or management' },
  { operation: 'process', from: ['Collateral'], condition: 'collateralRegistered', next: 'automatic decision', basis: 'design', by: 'customer or management', note: 'a secured loan is decided once a collateral is registered' },
  { operation: 'decision', from: ['Origination', 'Reprocessing', 'Collateral'], condition: 'bureauApproves', next: 'Offer confirmation', basis: 'design', by: 'workflow' },
  { operation: 'decision', from: ['Origination', 'Reprocessing', 'Collateral'], condition: 'bureauDeclines', next: 'Rejected', basis: 'design', by: 'workflow' },
  { operation: 'decision', from: ['Origination', 'Reprocessing', 'Collateral'], condition: 'bureauRefers', next: 'Waiting for approval', basis: 'design', by: 'workflow', note: 'referred to manual review' },
  { operation: 'decision', from: ['Origination', 'Reprocessing', 'Collateral'], condition: 'bureauUnavailable', next: 'Waiting for approval', basis: 'design', by: 'workflow', note: 'a bureau timeout refers the loan instead of failing it' },
  // The offer
  { operation: 'readOffer', from: ['Offer confirmation'], next: 'unchanged', basis: 'spec', by: 'customer' },
  { operation: 'readOffers', from: ['Offer confirmation'], condition: 'multipleOffers', next: 'unchanged', basis: 'spec', by: 'customer' },
  { operation: 'acceptOffer', from: ['Offer confirmation'], next: 'Waiting for approval', basis: 'spec, next designed', by: 'customer' },
  { operation: 'declineOffer', from: ['Offer confirmation'], next: 'Offer declined', basis: 'spec, next designed', by: 'customer' },
  // Approval and disbursement
  { operation: 'approve', from: ['Waiting for approval'], condition: 'offerAcceptedDocumentsComplete', next: 'Approved', basis: 'spec, next designed', by: 'management', note: 'every system document signed (else 409 documents_not_signed naming them; decision 0040) and, by design, every document group the product requires holding a file of the customer (else 409 documents_missing naming the groups)' },
  { operation: 'approve', from: ['Waiting for approval'], condition: 'referred', next: 'Offer confirmation', basis: 'spec, next designed', by: 'management', note: 'a referred loan approved by a person gets its offer' },
  // System documents signed by SMS (decision 0040): they come with the accepted offer.
  { operation: 'signDocument', from: ['Waiting for approval'], condition: 'offerAccepted', next: 'unchanged', basis: 'design', by: 'customer', note: 'with the code sent by SMS' },
  { operation: 'resendSmsCode', from: ['Waiting for approval'], condition: 'offerAccepted', next: 'unchanged', basis: 'design', by: 'customer', note: 'a new code; the previous one is dead' },
  { operation: 'declineDocument', from: ['Waiting for approval'], condition: 'offerAccepted', next: 'Cancelled', basis: 'design', by: 'customer', note: 'through cancel, with the system reason document_declined' },
  { operation: 'registerDisbursement', from: ['Approved'], condition: 'amountEqualsLoanAmount', next: 'Active', basis: 'spec, next designed', by: 'management' },
  // Disbursement through the collection gateway (decision 0041): the loan waits in Approved while its cash payout is open
  { operation: 'issueDisbursement', from: ['Approved'], condition: 'amountEqualsLoanAmount', next: 'unchanged', basis: 'design', by: 'management', note: 'as Loans/Disbursements (Approved, the loan amount); a cash payout is registered at the collection gateway; the loan stays Approved until it is collected or expires (one open payout at a time: 409 disbursement_in_progress)' },
  { operation: 'payoutCollected', from: ['Approved'], next: 'Active', basis: 'design', by: 'workflow', note: 'the PAID notification of the payout: the disbursement is registered, as by Loans/Disbursements' },
  { operation: 'payoutExpired', from: ['Approved'], next: 'Approved', basis: 'design', by: 'workflow', note: 'the EXPIRED notification: recorded with its reason; IssueDisbursement may be asked again' },
  { operation: 'payoutFailed', from: ['Approved'], next: 'Approved', basis: 'design', by: 'workflow', note: 'the gateway refused the payout (or the tenant is no merchant there): recorded with the reason' },
  // Changes to the application
  { operation: 'cancel', from: [...APPLICATION, ...DECIDED, 'Approved'], next: 'Cancelled', basis: 'design', by: 'customer', note: 'a reason is required (spec); not once paid out' },
  { operation: 'updateLoanDetails', from: APPLICATION, next: 'unchanged', basis: 'design', by: 'customer' },
  { operation: 'updateLoanDetails', from: DECIDED, next: 'Reprocessing', basis: 'design', by: 'customer', note: 'the offer or approval rested on the old details: decided again' },
  { operation: 'changeCollaterals', from: APPLICATION, next: 'unchanged', basis: 'design', by: 'customer' },
  { operation: 'changeCollaterals', from: DECIDED, next: 'Reprocessing', basis: 'design', by: 'customer' },
  { operation: 'updateCoApplicant', from: APPLICATION, next: 'unchanged', basis: 'design', by: 'customer' },
  { operation: 'updateCoApplicant', from: DECIDED, next: 'Reprocessing', basis: 'design', by: 'customer' },
  // Servicing
  { operation: 'requestRollover', from: SERVICED, condition: 'noRolloverRequested', next: 'unchanged', basis: 'design', by: 'customer' },
  { operation: 'cancelRollover', from: SERVICED, condition: 'rolloverRequested', next: 'unchanged', basis: 'design', by: 'customer' },
  { operation: 'enableAutocharge', from: ['Approved', ...SERVICED], next: 'unchanged', basis: 'design', by: 'management' },
  { operation: 'disableAutocharge', from: ['Approved', ...SERVICED], next: 'unchanged', basis: 'design', by: 'management' },
  // Servicing (decision 0043): the workflow wakes on due dates and after every repayment, edit or reversal
  { operation: 'instalmentOverdue', from: ['Active'], next: 'Past Due', basis: 'design', by: 'workflow', note: 'an instalment unpaid at its due date and the grace period (LENDING_GRACE_PERIOD_DAYS)' },
  { operation: 'overduePaid', from: ['Past Due'], next: 'Active', basis: 'design', by: 'workflow', note: 'every overdue instalment paid' },
  { operation: 'fullyRepaid', from: SERVICED, next: 'Repaid', basis: 'design', by: 'workflow', note: 'the whole schedule paid' },
  { operation: 'registerRepayment', from: SERVICED, next: 'unchanged', basis: 'spec, next designed', by: 'management', note: 'Management/Loans/Repayments; the status then follows the servicing rows' },
  { operation: 'correctRepayment', from: [...SERVICED, 'Repaid'], next: 'unchanged', basis: 'design', by: 'management', note: 'edit or reverse a repayment (also of a Repaid loan, within the reversal window); balances recomputed' },
  { operation: 'repaymentCorrected', from: ['Repaid'], condition: 'instalmentOverdue', next: 'Past Due', basis: 'design', by: 'workflow', note: 'a corrected repayment leaves an overdue instalment unpaid' },
  { operation: 'repaymentCorrected', from: ['Repaid'], condition: 'scheduleCurrent', next: 'Active', basis: 'design', by: 'workflow', note: 'a corrected repayment leaves the loan owing, nothing overdue' },
  // Repayments through the collection gateway (decision 0045)
  { operation: 'submitRepayment', from: SERVICED, next: 'unchanged', basis: 'design', by: 'customer', note: 'SubmitRepayment: a card charge or a deposit slip for a bank transfer; at most what the loan owes' },
  { operation: 'submittedRepaymentPaid', from: SERVICED, next: 'unchanged', basis: 'design', by: 'workflow', note: 'the charge paid, or the PAID notification of its INVOICE: booked once as a Regular payment (reference = INVOICE); the status then follows the servicing rows' },
  { operation: 'submittedRepaymentReversed', from: [...SERVICED, 'Repaid'], next: 'unchanged', basis: 'design', by: 'workflow', note: 'the REVERSED notification of a booked INVOICE (decision 0069): the bank took the transfer back, its repayment is reversed; the status then follows the servicing rows (a Repaid loan back to Active or Past Due)' },
  { operation: 'autocharge', from: SERVICED, next: 'unchanged', basis: 'design', by: 'workflow', note: 'auto-charge on: at 00:00 UTC of a due date the amount due is charged to the default card, once per instalment' },
  { operation: 'writeOff', from: ['Past Due'], next: 'Written off', basis: 'design', by: 'management', note: 'no endpoint yet (the spec has none)' },
];

/** Statuses in which an operation is allowed at all (whatever its condition). */
export function statusesOf(operation: LoanOperation): readonly LoanStatus[] {
  const statuses = new Set<LoanStatus>();
  for (const row of loanTransitions) {
    if (row.operation === operation && row.from !== 'new')
      for (const status of row.from) statuses.add(status);
  }
  return loanStatuses.filter((status) => statuses.has(status));
}

/** Failure types of a refused loan operation; the API answers each as a 409 with the same code. */
export const LoanRefusal = {
  /** The operation is not allowed in the loan's current status. */
  invalidStatus: 'invalid_loan_status',
  /** Process of a secured loan in Collateral before any collateral is registered. */
  collateralRequired: 'collateral_required',
  rolloverAlreadyRequested: 'rollover_already_requested',
  rolloverNotRequested: 'rollover_not_requested',
  multipleOffersDisabled: 'multiple_offers_disabled',
  disbursementAmountMismatch: 'disbursement_amount_mismatch',
  /** A cash payout of the loan is open at the collection gateway (IssueDisbursement, Cancel, Disbursements). */
  disbursementInProgress: 'disbursement_in_progress',
  /** The collection gateway refused the payout of IssueDisbursement (the loan stays Approved). */
  payoutRefused: 'payout_refused',
  /** A decision is being made for this loan (Process while the bureau is asked). */
  decisionInProgress: 'decision_in_progress',
  offerNotFound: 'offer_not_found',
  collateralNotFound: 'collateral_not_found',
  /** Approve of an accepted offer before every system document is signed (decision 0040). */
  documentsNotSigned: 'documents_not_signed',
  /** Approve while a document group the loan's product requires has no file of the customer (UserDocuments). */
  documentsMissing: 'documents_missing',
  /** A document operation on a loan without an accepted offer (referred, waiting for a person). */
  documentsNotAvailable: 'documents_not_available',
  /** A repayment (or its edit) pays more than the loan owes (decision 0043). */
  repaymentExceedsBalance: 'repayment_exceeds_balance',
  repaymentNotFound: 'repayment_not_found',
  /** The database refused the change for good (issue 20): undone, the loan takes its next operation. */
  dataRefused: 'data_refused',
} as const;
export type LoanRefusalType = (typeof LoanRefusal)[keyof typeof LoanRefusal];

/** Why a row's status allows it but its condition does not (the refusal the API answers). */
type ConditionRefusal = { type: LoanRefusalType; message: string };
const conditionRefusals: Partial<
  Record<LoanCondition, ConditionRefusal | ((facts: LoanFacts) => ConditionRefusal)>
> = {
  collateralRegistered: {
    type: LoanRefusal.collateralRequired,
    message: 'a secured loan is processed once a collateral is registered',
  },
  noRolloverRequested: {
    type: LoanRefusal.rolloverAlreadyRequested,
    message: 'a rollover is requested already',
  },
  rolloverRequested: { type: LoanRefusal.rolloverNotRequested, message: 'no rollover is requested' },
  multipleOffers: {
    type: LoanRefusal.multipleOffersDisabled,
    message: 'the loan was not decided with the multiple-offers feature on',
  },
  offerAcceptedDocumentsComplete: (facts) =>
    facts.documentsSigned === true
      ? {
          type: LoanRefusal.documentsMissing,
          message: 'every document group the credit product requires must hold a file before it is approved',
        }
      : {
          type: LoanRefusal.documentsNotSigned,
          message: 'every system document of the loan must be signed before it is approved',
        },
  offerAccepted: {
    type: LoanRefusal.documentsNotAvailable,
    message: 'the loan has no accepted offer: its documents come with the accepted offer',
  },
  amountEqualsLoanAmount: {
    type: LoanRefusal.disbursementAmountMismatch,
    message: 'the disbursement amount must equal the loan amount',
  },
};

export type LoanStep =
  | { allowed: true; row: LoanTransition; next: LoanNext }
  | { allowed: false; type: LoanRefusalType; message: string };

/** The message of a status refusal: names the operation and the current status. */
export const invalidStatusMessage = (operation: LoanOperation, status: LoanStatus) =>
  `${operation} is not allowed: the loan is in status ${status} (allowed in ${statusesOf(operation).join(', ') || 'no status'})`;

/** Where `operation` takes a loan in `status`, by the first row whose status and condition hold. */
export function stepOf(operation: LoanOperation, status: LoanStatus, facts: LoanFacts = {}): LoanStep {
  const rows = loanTransitions.filter(
    (row) => row.operation === operation && row.from !== 'new' && row.from.includes(status),
  );
  if (rows.length === 0) {
    return {
      allowed: false,
      type: LoanRefusal.invalidStatus,
      message: invalidStatusMessage(operation, status),
    };
  }
  const row = rows.find((candidate) => !candidate.condition || loanConditions[candidate.condition](facts));
  if (row) return { allowed: true, row, next: row.next };
  const refusal = rows
    .map((candidate) => {
      const found = candidate.condition && conditionRefusals[candidate.condition];
      return typeof found === 'function' ? found(facts) : found;
    })
    .find(Boolean);
  return {
    allowed: false,
    ...(refusal ?? { type: LoanRefusal.invalidStatus, message: invalidStatusMessage(operation, status) }),
  };
}

/** The first status of a new loan (`create` or `createWithDisbursement`). */
export function initialStatusOf(
  operation: 'create' | 'createWithDisbursement',
  facts: LoanFacts,
): LoanStatus {
  const row = loanTransitions.find(
    (candidate) =>
      candidate.operation === operation &&
      candidate.from === 'new' &&
      (!candidate.condition || loanConditions[candidate.condition](facts)),
  );
  if (!row || row.next === 'unchanged' || row.next === 'automatic decision') {
    throw new Error(`no initial status for ${operation}`);
  }
  return row.next;
}

/** The status after a step: its row's next status, or the same one. */
export const statusAfter = (status: LoanStatus, next: LoanNext): LoanStatus =>
  next === 'unchanged' || next === 'automatic decision' ? status : next;
