import type { Operation } from '../shared/operation.ts';
import type { LendingEnv } from './context.ts';
import { customerAccountSummaryOperation } from './customer/account-summary.ts';
import { customerLoansOperation } from './customer/loans.ts';
import { acceptLoanOfferOperation } from './customer/loans-accept-loan-offer.ts';
import { loansCancelOperation } from './customer/loans-cancel.ts';
import { coApplicantGetOperation } from './customer/loans-co-applicant-get.ts';
import { coApplicantPutOperation } from './customer/loans-co-applicant-put.ts';
import { collateralsAddOperation } from './customer/loans-collaterals-add.ts';
import { collateralsDeleteOperation } from './customer/loans-collaterals-delete.ts';
import { collateralsUpdateOperation } from './customer/loans-collaterals-update.ts';
import { customerLoansCreateOperation } from './customer/loans-create.ts';
import { declineLoanOfferOperation } from './customer/loans-decline-loan-offer.ts';
import { customerLoansGetOperation } from './customer/loans-get.ts';
import { loanDetailsPutOperation } from './customer/loans-loan-details-put.ts';
import { loanOfferOperation } from './customer/loans-loan-offer.ts';
import { loanOffersOperation } from './customer/loans-loan-offers.ts';
import { customerLoansProcessOperation } from './customer/loans-process.ts';
import { rolloverAllowedOperation } from './customer/loans-rollover-allowed.ts';
import { rolloverCancelOperation } from './customer/loans-rollover-cancel.ts';
import { rolloverRequestOperation } from './customer/loans-rollover-request.ts';
import { managementLoansApproveOperation } from './management/loans-approve.ts';
import { autochargeDisableOperation } from './management/loans-autocharge-disable.ts';
import { autochargeEnableOperation } from './management/loans-autocharge-enable.ts';
import { managementLoansCreateOperation } from './management/loans-create.ts';
import { managementLoansDisbursementsOperation } from './management/loans-disbursements.ts';
import { managementLoansGetOperation } from './management/loans-get.ts';
import { managementLoansProcessOperation } from './management/loans-process.ts';
import { managementLoansRepaymentsOperation } from './management/loans-repayments.ts';
import { loansRepaymentsDeleteOperation } from './management/loans-repayments-delete.ts';
import { loansRepaymentsPutOperation } from './management/loans-repayments-put.ts';

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
