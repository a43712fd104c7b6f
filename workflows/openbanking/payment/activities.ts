import { proxyActivities } from '@temporalio/workflow';
import type { OpenBankingActivities } from '../../../activities/openbanking/index.ts';

/** The payment's activities with their retry policies (the bank calls the API waits for: bank-calls.ts). */
export const {
  recordPaymentState,
  recordPaymentConfirmation,
  preparePaymentWebhook,
  readBankPaymentStatus,
  readBankAuthorisation,
} = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});
