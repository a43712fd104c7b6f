import { facade } from '../shared/facade.ts';
import { merchantBalance } from './balance.ts';
import { openCardPage, returnFromChallenge, submitCardPage } from './card-page.ts';
import { lookUpIdn, operationOf, operationsOf, payOutCash, takePayment } from './cash-desk.ts';
import { demoPayBill, demoPayOutCash } from './demo-office.ts';
import { createOperator, logIn, logOut, operatorOfSession } from './desk-sessions.ts';
import { changeExpiry } from './expiry.ts';
import {
  listLedgerAccounts,
  payOutProviderAccount,
  readProviderAccount,
  transferBetweenProviderAccounts,
} from './ledger.ts';
import { merchantNotifications } from './merchant-notifications.ts';
import { findObligation } from './obligation.ts';
import {
  checkPayment,
  invalidateDeviceToken,
  issueDeviceToken,
  pairDevice,
  reservePaymentId,
  sendRegisteredPayment,
  sendUnpairedPayment,
} from './one-touch.ts';
import { createApp } from './one-touch-apps.ts';
import { preauthorise } from './preauth.ts';
import { registerPacket } from './registration.ts';
import { chargeSavedCard, forgetSavedCard } from './saved-cards.ts';
import {
  importStatement,
  readStatement,
  resolveStatementReviewItem,
  statementReviewItems,
  uploadStatement,
} from './statements.ts';

/**
 * The payment-collection gateway's use cases (decision 0077): the one entry for its HTTP API, the admin
 * API and CLI, the watched statement folder, the demo and tests.
 */
export const collect = facade('collect', {
  // Obligations: registration (reg_bill.cgi, send.cgi, ...), expiry, preauth, a merchant's view.
  registerPacket,
  changeExpiry,
  preauthorise,
  findObligation,
  merchantBalance,
  merchantNotifications,
  // The card page and saved cards.
  openCardPage,
  submitCardPage,
  returnFromChallenge,
  chargeSavedCard,
  forgetSavedCard,
  // The cash desk and its demo office.
  createOperator,
  logIn,
  logOut,
  operatorOfSession,
  lookUpIdn,
  takePayment,
  payOutCash,
  operationOf,
  operationsOf,
  demoPayBill,
  demoPayOutCash,
  // One-touch.
  createApp,
  pairDevice,
  issueDeviceToken,
  invalidateDeviceToken,
  reservePaymentId,
  checkPayment,
  sendRegisteredPayment,
  sendUnpairedPayment,
  // The ledger and provider accounts.
  listLedgerAccounts,
  readProviderAccount,
  transferBetweenProviderAccounts,
  payOutProviderAccount,
  // Bank statements.
  importStatement,
  uploadStatement,
  statementReviewItems,
  resolveStatementReviewItem,
  readStatement,
});

export { StatementConflict } from '../../db/collect/statements.ts';
export type {
  CardFormSubject,
  CardPageOutcome,
  CardPageSubmission,
  PageErrorCode,
  ReturnUrls,
  SavedCardNote,
} from './card-page.ts';
export { BillingRefusal, type DeskReceipt, type IdnView } from './cash-desk.ts';
export type { BillingDue } from './demo-office.ts';
export type { DeskOperator } from './desk-sessions.ts';
export type { Obligation } from './obligation.ts';
export {
  type PaymentRow,
  type PaymentTerms,
  type RegisteredPayment,
  SANDBOX_CARD_LIMIT,
  TAX,
} from './one-touch.ts';
export type { Registered, RegisteringPayload } from './registration.ts';
export type { CardCharge } from './saved-cards.ts';
export type { ReceivedStatement, ReviewItem, ReviewResolution } from './statements.ts';
