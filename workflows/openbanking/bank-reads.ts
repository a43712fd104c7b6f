import { proxyActivities } from '@temporalio/workflow';
import type { OpenBankingActivities } from '../../activities/openbanking/index.ts';

/**
 * Reading accounts from their bank again (cache initialisation, scheduled refreshes). A bank in
 * maintenance answers 503 with Retry-After: retried for up to 15 minutes, then the workflow records the
 * refresh as failed (a retry past the deadline is not attempted). Not a workflow: not in ../index.ts.
 */
export const { refreshAccount, refreshConsentAccounts } = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '10 minutes',
  scheduleToCloseTimeout: '15 minutes',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
  },
});
