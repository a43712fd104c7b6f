import type { WorkflowHandle } from '@temporalio/client';
import { type LoanOperation, LoanRefusal, stepOf } from '../../domain/lending/loan-lifecycle.ts';
import {
  acceptOfferUpdate,
  addCollateralUpdate,
  approveUpdate,
  cancelRolloverUpdate,
  cancelUpdate,
  declineOfferUpdate,
  deleteCollateralUpdate,
  detailsCompletedUpdate,
  type LoanCoApplicant,
  type LoanCollateral,
  type LoanSnapshot,
  processUpdate,
  registerDisbursementUpdate,
  requestRolloverUpdate,
  setAutochargeUpdate,
  updateCoApplicantUpdate,
  updateCollateralUpdate,
  updateLoanDetailsUpdate,
} from '../../domain/lending/loan-process.ts';
import type { lendingLoan } from '../../workflows/lending/loan.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { calculateLoan, type LoanTerms, todayUtc } from './credit-products.ts';
import { readCustomer } from './customers.ts';
import { findCancellationReason } from './dictionaries.ts';
import { sendCodesOfAcceptedOffer, unsignedDocumentsOf } from './loan-documents.ts';
import {
  audienceOf,
  type LoanCaller,
  type LoanView,
  loanOf,
  moveLoan,
  refuseOutsideStatuses,
  viewOfLoan,
} from './loans.ts';
import { refuseCoApplicantBySettings } from './reference-data.ts';
import { missingDocumentGroups } from './user-documents.ts';

/**
 * The loan's moves a customer or management asks for (decision 0039): each is an Update of the loan's
 * workflow, validated there by the transition table, answered with the loan as the caller sees it.
 */

type Deps = Pick<UseCaseDeps, 'db' | 'temporal' | 'config'>;
type LoanHandle = WorkflowHandle<typeof lendingLoan>;

/** Finds the caller's loan, runs `operation`'s Update and answers the loan as recorded. */
async function move(
  deps: Deps,
  caller: LoanCaller,
  loanId: string,
  operation: LoanOperation,
  run: (loan: LoanHandle) => Promise<LoanSnapshot>,
): Promise<LoanView> {
  const row = await loanOf(deps, caller, loanId);
  return viewOfLoan(await moveLoan(deps, row, operation, run), audienceOf(caller));
}

/**
 * AcceptLoanOffer, then the first signing code of each document by SMS (issue 21), so the site goes
 * straight to the signing step; answered once the gateway took the codes. A code not sent does not undo
 * the acceptance: the customer asks for it with ResendSmsCode.
 */
export async function acceptLoanOffer(
  deps: UseCaseDeps,
  caller: LoanCaller,
  loanId: string,
  offerId: string | undefined,
  apiBaseUrl: string,
): Promise<LoanView> {
  const row = await loanOf(deps, caller, loanId);
  const moved = await moveLoan(deps, row, 'acceptOffer', (loan) =>
    loan.executeUpdate(acceptOfferUpdate, { args: [{ by: caller.actor, offerId }] }),
  );
  const view = viewOfLoan(moved, audienceOf(caller));
  // The codes change nothing the view shows; the acceptance's moment is in the history just read.
  await sendCodesOfAcceptedOffer(deps, moved.row, apiBaseUrl, view.statusHistory);
  return view;
}

export const declineLoanOffer = (deps: Deps, caller: LoanCaller, loanId: string) =>
  move(deps, caller, loanId, 'declineOffer', (loan) =>
    loan.executeUpdate(declineOfferUpdate, { args: [{ by: caller.actor }] }),
  );

export const requestRollover = (deps: Deps, caller: LoanCaller, loanId: string) =>
  move(deps, caller, loanId, 'requestRollover', (loan) =>
    loan.executeUpdate(requestRolloverUpdate, { args: [{ by: caller.actor }] }),
  );

export const cancelRollover = (deps: Deps, caller: LoanCaller, loanId: string) =>
  move(deps, caller, loanId, 'cancelRollover', (loan) =>
    loan.executeUpdate(cancelRolloverUpdate, { args: [{ by: caller.actor }] }),
  );

export const addCollateral = (
  deps: Deps,
  caller: LoanCaller,
  loanId: string,
  collateral: Omit<LoanCollateral, 'collateralId'>,
) =>
  move(deps, caller, loanId, 'changeCollaterals', (loan) =>
    loan.executeUpdate(addCollateralUpdate, { args: [{ by: caller.actor, collateral }] }),
  );

export const updateCollateral = (
  deps: Deps,
  caller: LoanCaller,
  loanId: string,
  collateral: LoanCollateral,
) =>
  move(deps, caller, loanId, 'changeCollaterals', (loan) =>
    loan.executeUpdate(updateCollateralUpdate, { args: [{ by: caller.actor, collateral }] }),
  );

export const deleteCollateral = (deps: Deps, caller: LoanCaller, loanId: string, collateralId: string) =>
  move(deps, caller, loanId, 'changeCollaterals', (loan) =>
    loan.executeUpdate(deleteCollateralUpdate, { args: [{ by: caller.actor, collateralId }] }),
  );

/**
 * Sets the co-applicant; past the status check, the tenant's co-applicant settings decide
 * (Settings/Application/CoApplicant: 409 `co_applicant_not_allowed`, 400 naming a required field).
 */
export async function updateCoApplicant(
  deps: Deps,
  caller: LoanCaller,
  loanId: string,
  coApplicant: LoanCoApplicant,
): Promise<LoanView> {
  refuseOutsideStatuses(await loanOf(deps, caller, loanId), 'updateCoApplicant');
  await refuseCoApplicantBySettings(deps, caller.tenantId, coApplicant);
  return move(deps, caller, loanId, 'updateCoApplicant', (loan) =>
    loan.executeUpdate(updateCoApplicantUpdate, { args: [{ by: caller.actor, coApplicant }] }),
  );
}

export const setAutocharge = (
  deps: Deps,
  caller: LoanCaller,
  loanId: string,
  change: { enabled: boolean; comment?: string | undefined },
) =>
  move(deps, caller, loanId, change.enabled ? 'enableAutocharge' : 'disableAutocharge', (loan) =>
    loan.executeUpdate(setAutochargeUpdate, { args: [{ by: caller.actor, ...change }] }),
  );

/**
 * A disbursement's date: refused (400 naming `field`) when after LENDING_DISBURSEMENT_HORIZON from now,
 * the latest day a payout made outside the platform may say it was made.
 */
export function refuseDisbursementBeyondHorizon(config: Deps['config'], date: string, field: string): void {
  const latest = todayUtc(new Date(Date.now() + config.LENDING_DISBURSEMENT_HORIZON));
  if (date > latest) throw Refusal.field(field, `must not be after ${latest} (LENDING_DISBURSEMENT_HORIZON)`);
}

/** Management/Loans/Disbursements: a payout made outside the platform, dated today by default. */
export async function registerDisbursement(
  deps: Deps,
  caller: LoanCaller,
  input: { loanId: string; amount: string; date?: string | undefined },
): Promise<LoanView> {
  const date = input.date ?? todayUtc();
  refuseDisbursementBeyondHorizon(deps.config, date, 'date');
  return move(deps, caller, input.loanId, 'registerDisbursement', (loan) =>
    loan.executeUpdate(registerDisbursementUpdate, {
      args: [{ by: caller.actor, disbursement: { amount: input.amount, date } }],
    }),
  );
}

/** Cancel by the customer, with a front-office reason of Dictionary/CancellationReasons. */
export async function cancelLoan(
  deps: Deps,
  caller: LoanCaller,
  loanId: string,
  input: { reasonId: string; comments?: string | undefined },
): Promise<LoanView> {
  const row = await loanOf(deps, caller, loanId);
  refuseOutsideStatuses(row, 'cancel');
  const reason = await findCancellationReason(deps, { tenantId: row.tenantId, reasonId: input.reasonId });
  if (!reason?.frontOffice)
    throw Refusal.field('reasonId', 'not a cancellation reason of Dictionary/CancellationReasons');
  const moved = await moveLoan(deps, row, 'cancel', (loan) =>
    loan.executeUpdate(cancelUpdate, {
      args: [{ by: caller.actor, reasonId: reason.id, comments: input.comments }],
    }),
  );
  return viewOfLoan(moved, audienceOf(caller));
}

/** New terms of the application: the status is refused before the terms are looked at. */
export async function updateLoanDetails(
  deps: Deps,
  caller: LoanCaller,
  loanId: string,
  body: LoanTerms,
): Promise<LoanView> {
  const row = await loanOf(deps, caller, loanId);
  refuseOutsideStatuses(row, 'updateLoanDetails');
  const { product, promoCode, schedule } = await calculateLoan(deps, { tenantId: row.tenantId, terms: body });
  const terms = { productName: product.name, promoCode, amount: schedule.amount, term: schedule.term };
  const moved = await moveLoan(deps, row, 'updateLoanDetails', (loan) =>
    loan.executeUpdate(updateLoanDetailsUpdate, {
      args: [{ by: caller.actor, terms, secured: product.secured, currency: product.currency }],
    }),
  );
  return viewOfLoan(moved, audienceOf(caller));
}

/**
 * Approve (management). An accepted offer is approved once every system document is signed (decision
 * 0040): `unsignedDocumentsOf` names the ones still unsigned.
 */
export async function approveLoan(
  deps: Deps,
  caller: LoanCaller,
  loanId: string,
  comments: string | undefined,
): Promise<LoanView> {
  const row = await loanOf(deps, caller, loanId);
  // The signatures are the documents' records (decision 0040).
  const { unsigned, product } = row.acceptedOfferId
    ? await unsignedDocumentsOf(deps, row)
    : { unsigned: [], product: undefined };
  if (row.status === 'Waiting for approval' && unsigned.length > 0) {
    throw Refusal.conflict(
      LoanRefusal.documentsNotSigned,
      `the customer has not signed: ${unsigned.map((document) => `${document.name} (${document.docTypeId})`).join(', ')}`,
    );
  }
  // The document groups the product requires (UserDocuments): each needs a file of the customer.
  const missing =
    row.status === 'Waiting for approval' && row.acceptedOfferId
      ? // The documents' product, when it was found by the same name (no promo code), is not read again.
        await missingDocumentGroups(deps, row, row.promoCode === null ? product : undefined)
      : [];
  if (missing.length > 0) {
    throw Refusal.conflict(
      LoanRefusal.documentsMissing,
      `the customer has no file in: ${missing.map((group) => `${group.name} (${group.groupId})`).join(', ')}`,
    );
  }
  const moved = await moveLoan(deps, row, 'approve', (loan) =>
    loan.executeUpdate(approveUpdate, {
      args: [
        {
          by: caller.actor,
          comments,
          documentsSigned: unsigned.length === 0,
          requiredDocumentsAttached: missing.length === 0,
        },
      ],
    }),
  );
  return viewOfLoan(moved, audienceOf(caller));
}

/**
 * Process (customer or management): only from Origination or Reprocessing (and, by design, Collateral
 * once a collateral is registered). A secured loan goes to Collateral; otherwise the credit bureau
 * decides in the loan's workflow: the answer comes once the request is recorded, and the decision moves
 * the loan later (the integrator polls the loan). A loan still in Pre-Origination whose
 * customer's details are complete by now is first moved on (a missed `detailsCompleted`).
 */
export async function sendForProcessing(
  deps: Deps & Pick<UseCaseDeps, 'config'>,
  caller: LoanCaller,
  loanId: string,
  comments: string | undefined,
): Promise<LoanView> {
  const row = await loanOf(deps, caller, loanId);
  const customer = await readCustomer(deps, { tenantId: row.tenantId, customerId: row.customerId });
  let loan = row;
  if (loan.status === 'Pre-Origination' && customer?.detailsComplete) {
    loan = (
      await moveLoan(deps, loan, 'detailsCompleted', (handle) => handle.executeUpdate(detailsCompletedUpdate))
    ).row;
  }
  const details = customer?.details ?? {};
  // What the bureau is asked about (it reaches the workflow's history: see docs/lending.md, Credit bureau).
  const applicant = {
    firstName: details.firstName ?? '',
    lastName: details.lastName ?? '',
    ...(details.ssn ? { ssn: details.ssn } : {}),
    ...(details.birthDate ? { birthDate: details.birthDate } : {}),
  };
  const moved = await moveLoan(deps, loan, 'process', (handle) =>
    handle.executeUpdate(processUpdate, { args: [{ by: caller.actor, comments, applicant }] }),
  );
  return viewOfLoan(moved, audienceOf(caller));
}

/** Whether the customer may request a rollover now, and why not. */
export async function rolloverAllowed(
  deps: Pick<UseCaseDeps, 'db'>,
  caller: LoanCaller,
  loanId: string,
): Promise<{ loanId: string; allowed: boolean; reason: string | null }> {
  const row = await loanOf(deps, caller, loanId);
  const step = stepOf('requestRollover', row.status, { rolloverRequested: row.rolloverRequested });
  return { loanId: row.loanId, allowed: step.allowed, reason: step.allowed ? null : step.message };
}

/** The loan's co-applicant (null when none is given). */
export async function coApplicantOf(
  deps: Pick<UseCaseDeps, 'db'>,
  caller: LoanCaller,
  loanId: string,
): Promise<{ loanId: string; coApplicant: LoanCoApplicant | null }> {
  const row = await loanOf(deps, caller, loanId);
  return { loanId: row.loanId, coApplicant: row.coApplicant ?? null };
}
