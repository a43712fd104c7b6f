import { proxyActivities } from '@temporalio/workflow';
import type { OpenBankingActivities } from '../../activities/openbanking/index.ts';
import type { AccountRefreshInput, RefreshError } from '../../domain/openbanking/processes.ts';

/**
 * Reading the account from its bank again. A bank in maintenance answers 503 with Retry-After:
 * retried for up to 15 minutes, then the workflow records the refresh as failed (a retry past the
 * deadline is not attempted).
 */
const { refreshAccount } = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '10 minutes',
  scheduleToCloseTimeout: '15 minutes',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 5,
  },
});

const { recordAccountRefreshFailed } = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Cache initialisation of one account (`ob-refresh-<ibanId>`): re-read its balances and transactions
 * from the bank with the stored consent. The read model keeps serving what it had when the bank
 * refuses (429 ACCESS_EXCEEDED, an expired consent) or cannot be reached; the reason is recorded.
 */
export async function accountRefresh(input: AccountRefreshInput): Promise<string> {
  try {
    return await refreshAccount(input);
  } catch {
    const reason: RefreshError = 'bank_unavailable';
    await recordAccountRefreshFailed({ ibanId: input.ibanId, reason });
    return reason;
  }
}
