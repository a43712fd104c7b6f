/**
 * The loan's use cases (workflow type `lendingLoan`, workflows/lending/loan.ts), one file per phase of
 * the workflow. The rule: a use case that asks the loan's workflow for a change lives in the file named
 * like the workflow's phase whose handler takes that Update (`loan/<phase>.ts` beside
 * `workflows/lending/loan/<phase>.ts`: application, offer, disbursement, servicing, submissions,
 * autocharge); a use case that only reads lives in `reads.ts`; the loan's documents (records of the
 * API, not Updates: decision 0040) in `documents.ts`. What they share: `view.ts` (the loan as the API
 * answers it), `record.ts` (the read model, found for its caller) and `workflow.ts` (starting and moving
 * the workflow, its refusals as the platform's errors). Sibling use cases import those three, never this
 * index (it would draw an import cycle back through customers.ts).
 */

export {
  addCollateral,
  applyForLoan,
  cancelLoan,
  createLoanForCustomer,
  deleteCollateral,
  sendForProcessing,
  updateCoApplicant,
  updateCollateral,
  updateLoanDetails,
} from './application.ts';
export { setAutocharge } from './autocharge.ts';
export { approveLoan, registerDisbursement } from './disbursement.ts';
export {
  declineLoanDocument,
  getLoanDocument,
  listLoanDocuments,
  resendSigningCode,
  signLoanDocument,
} from './documents.ts';
export { acceptLoanOffer, declineLoanOffer } from './offer.ts';
export {
  accountSummary,
  coApplicantOf,
  customerActiveLoans,
  loanOffer,
  loanOffers,
  readLoan,
  repaymentAmounts,
  rolloverAllowed,
  servicingView,
} from './reads.ts';
export {
  cancelRollover,
  editRepayment,
  registerRepayment,
  requestRollover,
  reverseRepayment,
} from './servicing.ts';
export { submitRepayment } from './submissions.ts';
