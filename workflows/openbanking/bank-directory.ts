import { proxyActivities } from '@temporalio/workflow';
import type { OpenBankingActivities } from '../../activities/openbanking/index.ts';
import type { BankDirectoryRefresh } from '../../domain/openbanking/processes.ts';

const { syncBankDirectory, refreshBankMaintenance } = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', maximumAttempts: 3 },
});

/**
 * One refresh of the bank directory (the `ob-bank-directory@<task queue>` schedule), run every
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
