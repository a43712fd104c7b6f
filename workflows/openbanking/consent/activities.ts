import { proxyActivities } from '@temporalio/workflow';
import type { OpenBankingActivities } from '../../../activities/openbanking/index.ts';

/** The consent's activities with their retry policies (the bank calls the API waits for: bank-calls.ts). */

export const {
  readBankConsentStatus,
  terminateBankConsent,
  recordConsentOutcome,
  prepareConsentWebhook,
  exchangeBankAuthorisationCode,
} = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

// Reading every account's history can take a while; a bank in maintenance is retried for up to an hour.
export const { storeConsentAccounts, storeAccountList } = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '10 minutes',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes' },
});
