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

/**
 * The lending platform's use cases (decision 0077): the one entry for its API, the admin CLI, the demo
 * and the tests. Every use case takes `(deps, input)`.
 */
export const lending = facade('lending', {
  activeInvestment,
  activeInvestments,
  addBankAccount,
  branchOffices,
  calculateLoan,
  changeBid,
  checkPromoCode,
  confirmAccount,
  createCard,
  createCustomer,
  customerRecord,
  deleteBankAccount,
  disclaimerOf,
  findCancellationReason,
  frontOfficeCancellationReasons,
  getFileInfo,
  investorDetails,
  investorPreferences,
  issueDisbursement,
  listBankAccounts,
  listBids,
  listCards,
  listCreditProducts,
  listCustomerCreditProducts,
  openFile,
  opportunities,
  processVerification,
  putCreditProduct,
  readBid,
  readCustomer,
  receiveCollectNotification,
  registerCustomer,
  registerInvestor,
  replaceCustomerDetails,
  saveCreditProduct,
  saveFrameData,
  searchCustomers,
  skipVerification,
  statesOf,
  submitBid,
  sweepOrphanFiles,
  updateCard,
  updateInvestorDetails,
  updateInvestorPreferences,
  uploadFile,
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
