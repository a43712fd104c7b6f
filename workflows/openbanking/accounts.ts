import { proxyActivities } from '@temporalio/workflow';
import type { PlatformActivities } from '../../activities/index.ts';
import type { RefreshError } from '../../activities/openbanking/accounts.ts';

// A bank in maintenance answers 503 with Retry-After; a retry past the deadline is not attempted.
const { refreshAccount } = proxyActivities<PlatformActivities>({
  startToCloseTimeout: '10 minutes',
  scheduleToCloseTimeout: '15 minutes',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
  },
});

const { recordAccountRefreshFailed, terminateUnusedConsent } = proxyActivities<PlatformActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Cache initialisation of one account (`ob-refresh-<ibanId>`): re-read its balances and transactions
 * from the bank with the stored consent. The read model keeps serving what it had when the bank
 * refuses (429 ACCESS_EXCEEDED, an expired consent) or cannot be reached; the reason is recorded.
 */
export async function accountRefresh(input: { ibanId: string }): Promise<string> {
  try {
    return await refreshAccount(input);
  } catch {
    const reason: RefreshError = 'bank_unavailable';
    await recordAccountRefreshFailed({ ibanId: input.ibanId, reason });
    return reason;
  }
}

/** DELETE iban removed the last account of a consent: end the bank consent (`ob-consent-end-<id>`). */
export async function consentTermination(input: { consentId: string }): Promise<string> {
  return terminateUnusedConsent(input);
}
