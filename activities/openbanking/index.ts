import type { ActivityDeps } from '../shared/deps.ts';
import { createAccountActivities } from './accounts.ts';
import { createBankDirectoryActivities } from './banks.ts';
import { createConsentActivities } from './consents.ts';

/** Every activity of the open-banking gateway; its workflows proxy `OpenBankingActivities`. */
export function createOpenBankingActivities(deps: ActivityDeps) {
  return {
    ...createBankDirectoryActivities(deps),
    ...createConsentActivities(deps),
    ...createAccountActivities(deps),
  };
}

export type OpenBankingActivities = ReturnType<typeof createOpenBankingActivities>;
