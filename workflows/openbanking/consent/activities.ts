import { proxyActivities } from '@temporalio/workflow';
import type { OpenBankingActivities } from '../../../activities/openbanking/index.ts';
import { openBankingSteps } from '../activities.ts';

/** The consent's own steps (the bank calls the API waits for: ConsentProcess.bank). */
export const {
  readBankConsentStatus,
  terminateBankConsent,
  recordConsentOutcome,
  prepareConsentWebhook,
  exchangeBankAuthorisationCode,
} = openBankingSteps;

// Reading every account's history can take a while; a bank in maintenance is retried for up to an hour.
export const { storeConsentAccounts, storeAccountList } = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '10 minutes',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes' },
});
