import { proxyActivities } from '@temporalio/workflow';
import type { OpenBankingActivities } from '../../activities/openbanking/index.ts';

/** The processes' own steps (read-model writes, hooks, bank reads nobody waits for): retried for good. */
export const openBankingSteps = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * The activities of bank calls the API waits for (a consent's creation, a payment's initiation, an
 * embedded step, a cancellation): few, short attempts, bounded by OPENBANKING_BANK_REQUEST_TIMEOUT.
 */
export const bankCallsWaitedFor = (bankRequestTimeoutMs: number) =>
  proxyActivities<OpenBankingActivities>({
    startToCloseTimeout: bankRequestTimeoutMs + 5_000,
    scheduleToCloseTimeout: 2 * bankRequestTimeoutMs + 15_000,
    retry: { initialInterval: '1 second', maximumAttempts: 3 },
  });
