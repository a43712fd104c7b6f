import type { ActivityDeps } from '../shared/deps.ts';
import { createAccountRefreshActivities } from './account-refresh.ts';
import { createBankDirectoryActivities } from './bank-directory.ts';
import { createBulkPaymentActivities } from './bulk-payment.ts';
import { createConsentActivities } from './consent.ts';
import { createConsentRefreshActivities } from './consent-refresh.ts';
import { createConsentTerminationActivities } from './consent-termination.ts';
import { createPaymentActivities } from './payment.ts';
import { createUserDeletionActivities } from './user-deletion.ts';

/**
 * Every activity of the open-banking gateway, one factory per process (the file named as its workflow);
 * its workflows proxy `OpenBankingActivities`.
 */
export function createOpenBankingActivities(deps: ActivityDeps) {
  return {
    ...createBankDirectoryActivities(deps),
    ...createConsentActivities(deps),
    ...createConsentRefreshActivities(deps),
    ...createAccountRefreshActivities(deps),
    ...createConsentTerminationActivities(deps),
    ...createUserDeletionActivities(deps),
    ...createPaymentActivities(deps),
    ...createBulkPaymentActivities(deps),
  };
}

export type OpenBankingActivities = ReturnType<typeof createOpenBankingActivities>;
