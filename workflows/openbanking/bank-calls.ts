import { proxyActivities } from '@temporalio/workflow';
import type { OpenBankingActivities } from '../../activities/openbanking/index.ts';

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
