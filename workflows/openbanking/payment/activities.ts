import { openBankingSteps } from '../activities.ts';

/** The payment's own steps (the bank calls the API waits for: PaymentProcess.bank). */
export const {
  recordPaymentState,
  recordPaymentConfirmation,
  preparePaymentWebhook,
  readBankPaymentStatus,
  readBankAuthorisation,
} = openBankingSteps;
