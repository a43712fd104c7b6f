import { facade } from '../shared/facade.ts';
import {
  deleteAccount,
  findConsentDetailsByIban,
  listAccountConsents,
  listAccounts,
  listConsentTokens,
  listListedAccounts,
  listTransactions,
  listUserAccounts,
  readBalance,
  readTransaction,
  requestAccountRefresh,
} from './accounts.ts';
import { receiveBankCallback } from './bank-callback.ts';
import { bankMaintenanceReport, findBank, listBanks } from './banks.ts';
import { bulksOfHook, searchBulks } from './bulk-payment/read.ts';
import { startBulk } from './bulk-payment/start.ts';
import {
  aisLinkBanks,
  continueEmbeddedSca,
  startAisLinkConsent,
  startConsent,
  startPaymentAuthorization,
} from './consent.ts';
import { createConsentsRequest, listConsentsRequests } from './consents-requests.ts';
import { createHook, setHookRedirect } from './hooks.ts';
import { enrolAgent, issueAdminHash, publishedKeys, rotateSigningKey } from './operators.ts';
import { readTransactionPage } from './paged-transactions.ts';
import { cancelPayment } from './payment/cancel.ts';
import { confirmPayment, verifySms } from './payment/confirm.ts';
import { createDirectPayment, createPaymentFromAccount, initiateDirectPayment } from './payment/create.ts';
import { paymentsOfHook, readPayment, readPaymentAuthorization } from './payment/read.ts';
import { searchPayments } from './payment/search.ts';
import { activeUsersDetails, activeUsersReport, auditByBank } from './reports.ts';
import {
  checkUser,
  deleteUser,
  issueUserToken,
  listUsers,
  readKycStatus,
  sendAisEmail,
  signUpUser,
  updateKycStatus,
} from './users.ts';

/**
 * The open-banking gateway's use cases (decision 0077): the one entry for its API, the admin CLI, the
 * benchmark and tests. Grouped by process: consent, payment, bulk payment, account reads and refresh,
 * users (their deletion), the bank directory, hooks, reports, operators.
 */
export const openbanking = facade('openbanking', {
  // consent (workflows/openbanking/consent.ts)
  startConsent,
  continueEmbeddedSca,
  startPaymentAuthorization,
  aisLinkBanks,
  startAisLinkConsent,
  createConsentsRequest,
  listConsentsRequests,
  receiveBankCallback,
  // payment (workflows/openbanking/payment.ts)
  createPaymentFromAccount,
  createDirectPayment,
  initiateDirectPayment,
  confirmPayment,
  verifySms,
  cancelPayment,
  readPayment,
  readPaymentAuthorization,
  paymentsOfHook,
  searchPayments,
  // bulk-payment (workflows/openbanking/bulk-payment.ts)
  startBulk,
  bulksOfHook,
  searchBulks,
  // accounts, their reads, account-refresh and consent-termination (workflows/openbanking/…)
  listAccounts,
  listUserAccounts,
  readBalance,
  listTransactions,
  readTransaction,
  readTransactionPage,
  listAccountConsents,
  deleteAccount,
  requestAccountRefresh,
  findConsentDetailsByIban,
  listConsentTokens,
  listListedAccounts,
  // users and user-deletion (workflows/openbanking/user-deletion.ts)
  signUpUser,
  readKycStatus,
  updateKycStatus,
  listUsers,
  checkUser,
  deleteUser,
  issueUserToken,
  sendAisEmail,
  // bank-directory (workflows/openbanking/bank-directory.ts)
  listBanks,
  findBank,
  bankMaintenanceReport,
  // hooks, reports, operators
  createHook,
  setHookRedirect,
  activeUsersReport,
  activeUsersDetails,
  auditByBank,
  enrolAgent,
  issueAdminHash,
  rotateSigningKey,
  publishedKeys,
});

export { BULK_SORT_FIELDS } from './bulk-payment/read.ts';
export type { BulkRequest } from './bulk-payment/start.ts';
export { MAX_VALIDITY_DAYS } from './consent.ts';
export type { HookCaller } from './hooks.ts';
export type { PaymentCancellationView } from './payment/cancel.ts';
export type { PaymentView } from './payment/read.ts';
export { PAYMENT_SORT_FIELDS } from './payment/search.ts';
export type { FlowOrigin, PsuRequest } from './psu.ts';
