import type { Operation } from '../shared/operation.ts';
import type { LendingEnv } from './context.ts';
import { paymentOptionsBankAccountsAddOperation } from './payment-options/bank-accounts-add.ts';
import { paymentOptionsBankAccountsListOperation } from './payment-options/bank-accounts-list.ts';
import { cancelBankVerificationOperation } from './payment-options/bank-verification-cancel-bank-verification.ts';
import { bankVerificationIsDataProcessedOperation } from './payment-options/bank-verification-is-data-processed.ts';
import { bankVerificationSaveDataOperation } from './payment-options/bank-verification-save-data.ts';
import { bankVerificationSettingsOperation } from './payment-options/bank-verification-settings.ts';
import { paymentOptionsCardsAddOperation } from './payment-options/cards-add.ts';
import { paymentOptionsCardsListOperation } from './payment-options/cards-list.ts';
import { paymentOptionsCardsPutOperation } from './payment-options/cards-put.ts';
import { paymentOptionsDeleteMethodOperation } from './payment-options/delete-method.ts';
import { paymentOptionsRepaymentAmountsOperation } from './payment-options/repayment-amounts.ts';
import { paymentOptionsSetDefaultMethodOperation } from './payment-options/set-default-method.ts';
import { paymentOptionsSubmitRepaymentOperation } from './payment-options/submit-repayment.ts';

/** PaymentOptions/*: the customer's payment methods, repayments and bank verification (decisions 0042, 0045). */
export const paymentOptionsOperations: readonly Operation<LendingEnv>[] = [
  paymentOptionsBankAccountsListOperation,
  paymentOptionsBankAccountsAddOperation,
  paymentOptionsCardsListOperation,
  paymentOptionsCardsAddOperation,
  paymentOptionsCardsPutOperation,
  paymentOptionsDeleteMethodOperation,
  paymentOptionsSetDefaultMethodOperation,
  paymentOptionsRepaymentAmountsOperation,
  paymentOptionsSubmitRepaymentOperation,
  bankVerificationSettingsOperation,
  bankVerificationSaveDataOperation,
  bankVerificationIsDataProcessedOperation,
  cancelBankVerificationOperation,
];
