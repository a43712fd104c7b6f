import { and, eq, notInArray } from 'drizzle-orm';
import { bankDirectoryUrlOf, readBankDirectory } from '../../connectors/openbanking/bank-directory.ts';
import { xs2aClientFor } from '../../connectors/openbanking/xs2a-client.ts';
import { obBankMaintenanceNotices, obBanks } from '../../db/schema/openbanking.ts';
import { type BankDirectoryEntry, bankHashOf } from '../../domain/openbanking/bank-directory.ts';
import type { BankDirectorySync } from '../../domain/openbanking/processes.ts';
import type { ActivityDeps } from '../shared/deps.ts';

/**
 * Activities of the bank-directory process: which banks the gateway connects to (ob_banks) and their
 * maintenance notices (ob_bank_maintenance_notices), refreshed by the `refreshBankDirectory` workflow
 * (workflows/openbanking/bank-directory.ts) on a schedule.
 */

export function createBankDirectoryActivities(deps: ActivityDeps) {
  const { db, config, logger } = deps;

  async function upsert(entry: BankDirectoryEntry, source: 'config' | 'directory') {
    const values = {
      code: entry.code,
      name: entry.name,
      country: entry.country,
      bic: entry.bic,
      xs2aBaseUrl: entry.xs2aBaseUrl,
      linkHosts: entry.linkHosts,
      bankFlowType: entry.bankFlowType,
      supportsPagedTransactions: entry.supportsPagedTransactions,
      source,
      active: true,
      updatedAt: new Date(),
    };
    await db
      .insert(obBanks)
      .values({ bankHash: bankHashOf(entry.code), ...values })
      .onConflictDoUpdate({ target: obBanks.bankHash, set: values });
  }

  return {
    /**
     * Writes the configured banks (OPENBANKING_BANKS, which win over the directory for the same code)
     * and the directory's banks; banks no longer listed become inactive. An unreadable directory leaves
     * its banks as they were and is reported, not thrown: the next refresh tries again.
     */
    async syncBankDirectory(): Promise<BankDirectorySync> {
      const configured = config.OPENBANKING_BANKS;
      const url = bankDirectoryUrlOf(config);
      let directory: BankDirectoryEntry[] | undefined;
      let directoryError: string | null = null;
      if (url) {
        try {
          directory = await readBankDirectory(url, deps);
        } catch (error) {
          directoryError = (error as Error).message;
          logger.warn({ url, err: error }, 'bank directory not readable; keeping the banks it listed before');
        }
      }
      const configuredCodes = new Set(configured.map((entry) => entry.code));
      for (const entry of configured) await upsert(entry, 'config');
      for (const entry of directory ?? [])
        if (!configuredCodes.has(entry.code)) await upsert(entry, 'directory');

      const listed = [
        ...configured.map((entry) => bankHashOf(entry.code)),
        ...(directory ?? []).map((entry) => bankHashOf(entry.code)),
      ];
      // Retire what is no longer listed; without a readable directory, keep the directory's banks.
      const retire = directory === undefined && url ? eq(obBanks.source, 'config') : undefined;
      await db
        .update(obBanks)
        .set({ active: false, updatedAt: new Date() })
        .where(
          and(
            eq(obBanks.active, true),
            listed.length > 0 ? notInArray(obBanks.bankHash, listed) : undefined,
            retire,
          ),
        );
      const active = await db
        .select({ bankHash: obBanks.bankHash })
        .from(obBanks)
        .where(eq(obBanks.active, true));
      return { bankHashes: active.map((row) => row.bankHash), directoryError };
    },

    /**
     * Reads one bank's maintenance notices and replaces the stored ones. A bank that cannot be read
     * keeps its previous notices and gets `maintenanceError`; the next refresh tries again.
     */
    async refreshBankMaintenance(input: {
      bankHash: string;
    }): Promise<{ notices: number; error: string | null }> {
      const [bank] = await db.select().from(obBanks).where(eq(obBanks.bankHash, input.bankHash));
      if (!bank) return { notices: 0, error: 'unknown bank' };
      try {
        const notices = await xs2aClientFor(bank, config, deps.fetch).getMaintenanceNotices();
        const now = new Date();
        await db.transaction(async (tx) => {
          await tx
            .delete(obBankMaintenanceNotices)
            .where(eq(obBankMaintenanceNotices.bankHash, bank.bankHash));
          const unique = [...new Map(notices.map((notice) => [notice.id, notice])).values()];
          if (unique.length > 0)
            await tx.insert(obBankMaintenanceNotices).values(
              unique.map((notice) => ({
                bankHash: bank.bankHash,
                noticeId: notice.id,
                startsAt: new Date(notice.startsAt),
                endsAt: new Date(notice.endsAt),
                message: notice.message,
                fetchedAt: now,
              })),
            );
          await tx
            .update(obBanks)
            .set({ maintenanceCheckedAt: now, maintenanceError: null })
            .where(eq(obBanks.bankHash, bank.bankHash));
        });
        return { notices: notices.length, error: null };
      } catch (error) {
        const message = (error as Error).message;
        logger.warn({ bankHash: bank.bankHash, err: error }, 'maintenance notices not readable');
        await db
          .update(obBanks)
          .set({ maintenanceError: message })
          .where(eq(obBanks.bankHash, bank.bankHash));
        return { notices: 0, error: message };
      }
    },
  };
}
