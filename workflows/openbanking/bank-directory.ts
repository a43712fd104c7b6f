import { proxyActivities } from '@temporalio/workflow';
import type { OpenBankingActivities } from '../../activities/openbanking/index.ts';

/** The schedule that runs refreshBankDirectory, one per deployment (task queue). */
export const bankDirectoryScheduleId = (taskQueue: string) => `ob-bank-directory@${taskQueue}`;

const { syncBankDirectory, refreshBankMaintenance } = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', maximumAttempts: 3 },
});

export interface BankDirectoryRefresh {
  banks: number;
  notices: number;
  /** Banks whose maintenance notices could not be read this time. */
  failedBanks: string[];
  directoryError: string | null;
}

/**
 * One refresh of the bank directory, run by a Temporal schedule every
 * OPENBANKING_BANK_REFRESH_INTERVAL: bring ob_banks in line with the configuration and the directory,
 * then read every active bank's maintenance notices (in parallel; one slow bank does not hold up the
 * others' notices, and a bank that fails keeps its previous notices).
 */
export async function refreshBankDirectory(): Promise<BankDirectoryRefresh> {
  const { bankHashes, directoryError } = await syncBankDirectory();
  const results = await Promise.all(bankHashes.map((bankHash) => refreshBankMaintenance({ bankHash })));
  return {
    banks: bankHashes.length,
    notices: results.reduce((sum, result) => sum + result.notices, 0),
    failedBanks: bankHashes.filter((_, index) => results[index]!.error !== null),
    directoryError,
  };
}
