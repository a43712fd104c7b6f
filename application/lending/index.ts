import { facade } from '../shared/facade.ts';
import { addBankAccount, deleteBankAccount, listBankAccounts } from './bank-accounts.ts';
import {
  processVerification,
  saveFrameData,
  skipVerification,
  verificationSettings,
} from './bank-verification.ts';
import { changeBid, listBids, readBid, submitBid, withdrawBid } from './bids.ts';
import { createCard, listCards, updateCard } from './cards.ts';
import { receiveCollectNotification } from './collect-notifications.ts';
import {
  calculateLoan,
  checkPromoCode,
  listCreditProducts,
  listCustomerCreditProducts,
  putCreditProduct,
  saveCreditProduct,
} from './credit-products.ts';
import {
  confirmAccount,
  createCustomer,
  customerRecord,
  disclaimerOf,
  readCustomer,
  registerCustomer,
  replaceCustomerDetails,
  searchCustomers,
  statesOf,
} from './customers.ts';
import { branchOffices, findCancellationReason, frontOfficeCancellationReasons } from './dictionaries.ts';
import { issueDisbursement } from './disbursement.ts';
import { getFileInfo, openFile, sweepOrphanFiles, uploadFile } from './files.ts';
import {
  activeInvestment,
  activeInvestments,
  investorDetails,
  investorPreferences,
  opportunities,
  registerInvestor,
  updateInvestorDetails,
  updateInvestorPreferences,
} from './investors.ts';

import {
  acceptLoanOffer,
  accountSummary,
  addCollateral,
  applyForLoan,
  approveLoan,
  cancelLoan,
  cancelRollover,
  coApplicantOf,
  createLoanForCustomer,
  customerActiveLoans,
  declineLoanDocument,
  declineLoanOffer,
  deleteCollateral,
  editRepayment,
  getLoanDocument,
  listLoanDocuments,
  loanOffer,
  loanOffers,
  readLoan,
  registerDisbursement,
  registerRepayment,
  repaymentAmounts,
  requestRollover,
  resendSigningCode,
  reverseRepayment,
  rolloverAllowed,
  sendForProcessing,
  servicingView,
  setAutocharge,
  signLoanDocument,
  submitRepayment,
  updateCoApplicant,
  updateCollateral,
  updateLoanDetails,
} from './loan/index.ts';
import { deletePaymentMethod, setDefaultPaymentMethod } from './payment-methods.ts';
import {
  coApplicantSettings,
  deleteDictionary,
  dictionaryValues,
  filteredDictionaryValues,
  putApplicationSettings,
  putDictionary,
  vendorSettings,
} from './reference-data.ts';
import { referenceDataOfTenant, seedReferenceData } from './reference-data-seed.ts';
import { checkTenantSiteUrl } from './tenant-site.ts';
import {
  addTenantBranchOffice,
  addTenantCancellationReason,
  createTenant,
  issueTenantApiKey,
  readCollectMerchant,
  readTenant,
  revokeTenantApiKey,
  setCollectMerchant,
} from './tenants.ts';
import { attachUserDocument, listUserDocuments, removeUserDocument } from './user-documents.ts';
import { changeUserPassword, logIn, requestPasswordReset, resetUserPassword, unlockLogin } from './users.ts';
import { activeVendors, putVendor, storesMap, storesOfVendor } from './vendors.ts';

/**
 * The lending platform's use cases (decision 0077): the one entry to them for the API, the admin CLI,
 * the demo and the tests. Every use case takes `(deps, input)`. One entry per line, in alphabetical order.
 */
export const lending = facade('lending', {
  acceptLoanOffer,
  accountSummary,
  activeInvestment,
  activeInvestments,
  activeVendors,
  addBankAccount,
  addCollateral,
  addTenantBranchOffice,
  addTenantCancellationReason,
  applyForLoan,
  approveLoan,
  attachUserDocument,
  branchOffices,
  calculateLoan,
  cancelLoan,
  cancelRollover,
  changeBid,
  changeUserPassword,
  checkPromoCode,
  checkTenantSiteUrl,
  coApplicantOf,
  coApplicantSettings,
  confirmAccount,
  createCard,
  createCustomer,
  createLoanForCustomer,
  createTenant,
  customerActiveLoans,
  customerRecord,
  declineLoanDocument,
  declineLoanOffer,
  deleteBankAccount,
  deleteCollateral,
  deleteDictionary,
  deletePaymentMethod,
  dictionaryValues,
  disclaimerOf,
  editRepayment,
  filteredDictionaryValues,
  findCancellationReason,
  frontOfficeCancellationReasons,
  getFileInfo,
  getLoanDocument,
  investorDetails,
  investorPreferences,
  issueDisbursement,
  issueTenantApiKey,
  listBankAccounts,
  listBids,
  listCards,
  listCreditProducts,
  listCustomerCreditProducts,
  listLoanDocuments,
  listUserDocuments,
  loanOffer,
  loanOffers,
  logIn,
  openFile,
  opportunities,
  processVerification,
  putApplicationSettings,
  putCreditProduct,
  putDictionary,
  putVendor,
  readBid,
  readCollectMerchant,
  readCustomer,
  readLoan,
  readTenant,
  receiveCollectNotification,
  referenceDataOfTenant,
  registerCustomer,
  registerDisbursement,
  registerInvestor,
  registerRepayment,
  removeUserDocument,
  repaymentAmounts,
  replaceCustomerDetails,
  requestPasswordReset,
  requestRollover,
  resendSigningCode,
  resetUserPassword,
  reverseRepayment,
  revokeTenantApiKey,
  rolloverAllowed,
  saveCreditProduct,
  saveFrameData,
  searchCustomers,
  seedReferenceData,
  sendForProcessing,
  servicingView,
  setAutocharge,
  setCollectMerchant,
  setDefaultPaymentMethod,
  signLoanDocument,
  skipVerification,
  statesOf,
  storesMap,
  storesOfVendor,
  submitBid,
  submitRepayment,
  sweepOrphanFiles,
  unlockLogin,
  updateCard,
  updateCoApplicant,
  updateCollateral,
  updateInvestorDetails,
  updateInvestorPreferences,
  updateLoanDetails,
  uploadFile,
  vendorSettings,
  verificationSettings,
  withdrawBid,
});

export type { BankAccountView } from './bank-accounts.ts';
export type {
  BankVerificationSettings,
  BankVerificationView,
  VerificationCaller,
} from './bank-verification.ts';
export type { BidView } from './bids.ts';
export type { CardView } from './cards.ts';
export type { FileCaller, FileInfo, Upload } from './files.ts';
export type { InvestmentView, InvestorCaller, OpportunityView } from './investors.ts';
export type { DocumentCaller } from './loan/documents.ts';
export type { LoanCaller } from './loan/record.ts';
export type { SubmissionInput } from './loan/submissions.ts';
export type { LoanView } from './loan/view.ts';
export type { CollectMerchantView } from './tenants.ts';
export type { DocumentGroupView, UserDocumentsCaller, UserDocumentView } from './user-documents.ts';
