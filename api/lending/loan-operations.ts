import type { Operation } from '../shared/operation.ts';
import { acceptLoanOfferOperation } from './accept-loan-offer.ts';
import { autochargeDisableOperation } from './autocharge-disable.ts';
import { autochargeEnableOperation } from './autocharge-enable.ts';
import { coApplicantGetOperation } from './co-applicant-get.ts';
import { coApplicantPutOperation } from './co-applicant-put.ts';
import { collateralsAddOperation } from './collaterals-add.ts';
import { collateralsDeleteOperation } from './collaterals-delete.ts';
import { collateralsUpdateOperation } from './collaterals-update.ts';
import type { LendingEnv } from './context.ts';
import { customerAccountSummaryOperation } from './customer-account-summary.ts';
import { customerLoansOperation } from './customer-loans.ts';
import { customerLoansCreateOperation } from './customer-loans-create.ts';
import { customerLoansGetOperation } from './customer-loans-get.ts';
import { customerLoansProcessOperation } from './customer-loans-process.ts';
import { declineLoanOfferOperation } from './decline-loan-offer.ts';
import { loanDetailsPutOperation } from './loan-details-put.ts';
import { loanOfferOperation } from './loan-offer.ts';
import { loanOffersOperation } from './loan-offers.ts';
import { loansCancelOperation } from './loans-cancel.ts';
import { loansRepaymentsDeleteOperation } from './loans-repayments-delete.ts';
import { loansRepaymentsPutOperation } from './loans-repayments-put.ts';
import { managementLoansApproveOperation } from './management-loans-approve.ts';
import { managementLoansCreateOperation } from './management-loans-create.ts';
import { managementLoansDisbursementsOperation } from './management-loans-disbursements.ts';
import { managementLoansGetOperation } from './management-loans-get.ts';
import { managementLoansProcessOperation } from './management-loans-process.ts';
import { managementLoansRepaymentsOperation } from './management-loans-repayments.ts';
import { rolloverAllowedOperation } from './rollover-allowed.ts';
import { rolloverCancelOperation } from './rollover-cancel.ts';
import { rolloverRequestOperation } from './rollover-request.ts';

/** The loan operations (Customer/Loans/*, Customer/AccountSummary, Management/Loans/*): the loan lifecycle, decision 0039. */
export const loanOperations: readonly Operation<LendingEnv>[] = [
  customerAccountSummaryOperation,
  customerLoansOperation,
  customerLoansCreateOperation,
  customerLoansGetOperation,
  customerLoansProcessOperation,
  loanOfferOperation,
  loanOffersOperation,
  acceptLoanOfferOperation,
  declineLoanOfferOperation,
  loansCancelOperation,
  loanDetailsPutOperation,
  collateralsAddOperation,
  collateralsUpdateOperation,
  collateralsDeleteOperation,
  coApplicantGetOperation,
  coApplicantPutOperation,
  rolloverRequestOperation,
  rolloverCancelOperation,
  rolloverAllowedOperation,
  managementLoansCreateOperation,
  managementLoansDisbursementsOperation,
  managementLoansRepaymentsOperation,
  loansRepaymentsPutOperation,
  loansRepaymentsDeleteOperation,
  managementLoansGetOperation,
  managementLoansProcessOperation,
  managementLoansApproveOperation,
  autochargeEnableOperation,
  autochargeDisableOperation,
];
