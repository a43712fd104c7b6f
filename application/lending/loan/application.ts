import { Decimal } from 'decimal.js';
import { minorUnitProblem, offeredInState } from '../../../domain/lending/credit-products.ts';
import { initialStatusOf } from '../../../domain/lending/loan-lifecycle.ts';
import {
  addCollateralUpdate,
  cancelUpdate,
  deleteCollateralUpdate,
  detailsCompletedUpdate,
  type LoanCoApplicant,
  type LoanCollateral,
  processUpdate,
  schedulePosition,
  updateCoApplicantUpdate,
  updateCollateralUpdate,
  updateLoanDetailsUpdate,
} from '../../../domain/lending/loan-process.ts';
import type { Schedule } from '../../../domain/lending/schedule.ts';
import type { LendingTenant } from '../../../domain/lending/tenancy.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';
import { Refusal } from '../../shared/refusal.ts';
import { calculateLoan, type LoanTerms, todayUtc } from '../credit-products.ts';
import { readCustomer } from '../customers.ts';
import { findCancellationReason } from '../dictionaries.ts';
import { refuseCoApplicantBySettings } from '../reference-data.ts';
import { pointOfSaleOfNewLoan, recordPointOfSale } from '../vendors.ts';
import { refuseDisbursementBeyondHorizon } from './disbursement.ts';
import type { LoanRequest } from './record.ts';
import { audienceOf, type LoanCaller, loanOf, refuseOutsideStatuses } from './record.ts';
import { type LoanRecord, type LoanView, viewOfLoan } from './view.ts';
import { moveLoan, moveLoanOf, startLoan } from './workflow.ts';
/**
 * The application (workflows/lending/loan/application.ts): a loan created by the customer or by
 * management (one workflow per loan, decision 0039), its terms, collaterals and co-applicant changed,
 * cancelled, and sent for processing.
 */

/** The vendor and store a loan was sold at (optional; Vendors/*): checked, then kept beside the loan. */
export interface PointOfSaleInput {
  vendorId?: string | undefined;
  storeId?: string | undefined;
}

/**
 * Starts the loan and records its point of sale, checked first (400 naming `vendorId` or `storeId`):
 * the loan's workflow never sees it (its input is unchanged), so the row is written here.
 */
async function startLoanSoldAt(
  deps: Deps,
  named: PointOfSaleInput,
  input: Parameters<typeof startLoan>[1],
): Promise<LoanRecord> {
  const pointOfSale = await pointOfSaleOfNewLoan(deps, input.tenantId, named);
  const record = await startLoan(deps, input);
  if (!pointOfSale) return record;
  // Recorded once the loan exists (its id is made by startLoan): the record read before it lacks it.
  await recordPointOfSale(deps, input.tenantId, record.row.loanId, pointOfSale);
  return { ...record, parts: { ...record.parts, pointOfSale } };
}

type Deps = Pick<UseCaseDeps, 'db' | 'temporal' | 'config'>;
type Tenant = Pick<LendingTenant, 'id' | 'features'>;

/**
 * Customer/Loans/Create: a loan application from terms and the Name of a credit product (or a promo
 * code standing in for it). Pre-Origination while the customer's details are incomplete, else
 * Origination (the spec's rows).
 */
export async function applyForLoan(
  deps: Deps,
  {
    tenant,
    caller,
    terms,
  }: { tenant: Tenant; caller: LoanCaller & { customerId: string }; terms: LoanTerms & PointOfSaleInput },
): Promise<LoanView> {
  const { customerId } = caller;
  const { product, promoCode, schedule } = await calculateLoan(
    { db: deps.db },
    { tenantId: tenant.id, terms: terms },
  );
  const customer = await readCustomer({ db: deps.db }, { tenantId: tenant.id, customerId: customerId });
  if (!customer) throw Refusal.notFound('Customer');
  if (tenant.features.stateManagement && !offeredInState(product, customer.details.address?.state)) {
    throw Refusal.field('productName', `${product.name} is not offered in the customer’s state`);
  }
  const record = await startLoanSoldAt(deps, terms, {
    tenantId: tenant.id,
    customerId,
    terms: { productName: product.name, promoCode, amount: schedule.amount, term: schedule.term },
    currency: product.currency,
    secured: product.secured,
    status: initialStatusOf('create', { detailsComplete: customer.detailsComplete }),
    createdBy: caller.actor,
    multipleOffers: tenant.features.multipleOffers,
  });
  return viewOfLoan(record, 'customer');
}

/** What management creates a loan from (Management/Loans, /Migration/Loans/Create). */
export interface ManagementLoanInput extends Omit<LoanTerms, 'startDate'>, PointOfSaleInput {
  customerId: string;
  comments?: string | undefined;
  /** At most one: a loan already paid out (migration). */
  disbursements?: { amount: string; date: string }[] | undefined;
  repaidAmount?: string | undefined;
}

/**
 * Management/Loans: a loan for a customer. Without a disbursement like the customer's Create
 * (Pre-Origination or Origination by the customer's details); with one disbursement the loan is already
 * paid out and its status is decided by its schedule (starting on the disbursement date), the amount
 * repaid and today: Repaid when the repaid amount covers everything payable, Past Due when it does not
 * cover what fell due before today, else Active.
 */
export async function createLoanForCustomer(
  deps: Deps,
  { tenant, caller, loan: body }: { tenant: Tenant; caller: LoanCaller; loan: ManagementLoanInput },
): Promise<LoanView> {
  const customer = await readCustomer({ db: deps.db }, { tenantId: tenant.id, customerId: body.customerId });
  if (!customer) throw Refusal.field('customerId', 'no customer of this id');
  const [disbursement] = body.disbursements ?? [];
  const today = todayUtc();
  if (disbursement) refuseDisbursementBeyondHorizon(deps.config, disbursement.date, 'disbursements.0.date');
  const { product, promoCode, schedule } = await calculateLoan(
    { db: deps.db },
    { tenantId: tenant.id, terms: { ...body, startDate: disbursement?.date ?? today }, today },
  );
  let status = initialStatusOf('create', { detailsComplete: customer.detailsComplete });
  if (disbursement) {
    if (!new Decimal(disbursement.amount).eq(schedule.amount)) {
      throw Refusal.field('disbursements.0.amount', 'the disbursement amount must equal the loan amount');
    }
    if (body.repaidAmount !== undefined) refuseRepaidAmount(body.repaidAmount, schedule);
    const position = schedulePosition(schedule.instalments, body.repaidAmount ?? '0', today);
    status = initialStatusOf('createWithDisbursement', { schedule: position });
  } else if (body.repaidAmount !== undefined) {
    throw Refusal.field('repaidAmount', 'only with a disbursement');
  }
  const record = await startLoanSoldAt(deps, body, {
    tenantId: tenant.id,
    customerId: customer.id,
    terms: { productName: product.name, promoCode, amount: schedule.amount, term: schedule.term },
    currency: product.currency,
    secured: product.secured,
    status,
    createdBy: caller.actor,
    comments: body.comments,
    multipleOffers: tenant.features.multipleOffers,
    ...(disbursement ? { disbursement: { amount: schedule.amount, date: disbursement.date } } : {}),
    // The workflow books it as an opening repayment (decision 0043).
    ...(disbursement && body.repaidAmount ? { repaidAmount: body.repaidAmount } : {}),
  });
  return viewOfLoan(record, 'management');
}

/**
 * What a migrated loan says was repaid: in the currency's minor unit (more decimals are refused, not
 * rounded) and at most what its schedule asks for in all (400 naming `repaidAmount`).
 */
function refuseRepaidAmount(repaidAmount: string, schedule: Schedule): void {
  const tooPrecise = minorUnitProblem(repaidAmount, schedule.currency);
  if (tooPrecise) throw Refusal.field('repaidAmount', tooPrecise);
  if (new Decimal(repaidAmount).gt(schedule.totals.payable)) {
    throw Refusal.field(
      'repaidAmount',
      `must not exceed what the schedule asks for in all (${schedule.totals.payable} ${schedule.currency})`,
    );
  }
}

export const addCollateral = (
  deps: Deps,
  { caller, loanId, collateral }: LoanRequest & { collateral: Omit<LoanCollateral, 'collateralId'> },
) =>
  moveLoanOf(deps, caller, loanId, 'changeCollaterals', (loan) =>
    loan.executeUpdate(addCollateralUpdate, { args: [{ by: caller.actor, collateral }] }),
  );

export const updateCollateral = (
  deps: Deps,
  { caller, loanId, collateral }: LoanRequest & { collateral: LoanCollateral },
) =>
  moveLoanOf(deps, caller, loanId, 'changeCollaterals', (loan) =>
    loan.executeUpdate(updateCollateralUpdate, { args: [{ by: caller.actor, collateral }] }),
  );

export const deleteCollateral = (
  deps: Deps,
  { caller, loanId, collateralId }: LoanRequest & { collateralId: string },
) =>
  moveLoanOf(deps, caller, loanId, 'changeCollaterals', (loan) =>
    loan.executeUpdate(deleteCollateralUpdate, { args: [{ by: caller.actor, collateralId }] }),
  );

/**
 * Sets the co-applicant; past the status check, the tenant's co-applicant settings decide
 * (Settings/Application/CoApplicant: 409 `co_applicant_not_allowed`, 400 naming a required field).
 */
export async function updateCoApplicant(
  deps: Deps,
  { caller, loanId, coApplicant }: LoanRequest & { coApplicant: LoanCoApplicant },
): Promise<LoanView> {
  refuseOutsideStatuses(await loanOf(deps, caller, loanId), 'updateCoApplicant');
  await refuseCoApplicantBySettings(deps, caller.tenantId, coApplicant);
  return moveLoanOf(deps, caller, loanId, 'updateCoApplicant', (loan) =>
    loan.executeUpdate(updateCoApplicantUpdate, { args: [{ by: caller.actor, coApplicant }] }),
  );
}

/** Cancel by the customer, with a front-office reason of Dictionary/CancellationReasons. */
export async function cancelLoan(
  deps: Deps,
  { caller, loanId, ...input }: LoanRequest & { reasonId: string; comments?: string | undefined },
): Promise<LoanView> {
  const row = await loanOf(deps, caller, loanId);
  refuseOutsideStatuses(row, 'cancel');
  const reason = await findCancellationReason(
    { db: deps.db },
    { tenantId: row.tenantId, reasonId: input.reasonId },
  );
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
  { caller, loanId, terms: body }: LoanRequest & { terms: LoanTerms },
): Promise<LoanView> {
  const row = await loanOf(deps, caller, loanId);
  refuseOutsideStatuses(row, 'updateLoanDetails');
  const { product, promoCode, schedule } = await calculateLoan(
    { db: deps.db },
    { tenantId: row.tenantId, terms: body },
  );
  const terms = { productName: product.name, promoCode, amount: schedule.amount, term: schedule.term };
  const moved = await moveLoan(deps, row, 'updateLoanDetails', (loan) =>
    loan.executeUpdate(updateLoanDetailsUpdate, {
      args: [{ by: caller.actor, terms, secured: product.secured, currency: product.currency }],
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
  deps: Deps,
  { caller, loanId, comments }: LoanRequest & { comments?: string | undefined },
): Promise<LoanView> {
  const row = await loanOf(deps, caller, loanId);
  const customer = await readCustomer(
    { db: deps.db, config: deps.config },
    { tenantId: row.tenantId, customerId: row.customerId },
  );
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
