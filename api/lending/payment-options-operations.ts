import type { Operation } from '../shared/operation.ts';
import { bankVerificationIsDataProcessedOperation } from './bank-verification-is-data-processed.ts';
import { bankVerificationSaveDataOperation } from './bank-verification-save-data.ts';
import { bankVerificationSettingsOperation } from './bank-verification-settings.ts';
import { cancelBankVerificationOperation } from './cancel-bank-verification.ts';
import type { LendingEnv } from './context.ts';
import { paymentOptionsBankAccountsAddOperation } from './payment-options-bank-accounts-add.ts';
import { paymentOptionsBankAccountsListOperation } from './payment-options-bank-accounts-list.ts';
import { paymentOptionsDeleteMethodOperation } from './payment-options-delete-method.ts';
import { paymentOptionsRepaymentAmountsOperation } from './payment-options-repayment-amounts.ts';
import { paymentOptionsSetDefaultMethodOperation } from './payment-options-set-default-method.ts';

/** PaymentOptions/*: the customer's payment methods and bank verification (decision 0042). */
export const paymentOptionsOperations: readonly Operation<LendingEnv>[] = [
  paymentOptionsBankAccountsListOperation,
  paymentOptionsBankAccountsAddOperation,
  paymentOptionsDeleteMethodOperation,
  paymentOptionsSetDefaultMethodOperation,
  paymentOptionsRepaymentAmountsOperation,
  bankVerificationSettingsOperation,
  bankVerificationSaveDataOperation,
  bankVerificationIsDataProcessedOperation,
  cancelBankVerificationOperation,
];
