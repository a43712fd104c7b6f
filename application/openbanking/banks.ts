import { and, asc, eq, gt, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { obBankMaintenanceNotices, obBanks } from '../../db/schema/openbanking.ts';
import type { BankFlowType } from '../../domain/openbanking/xs2a.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';

/**
 * Banks as the gateway's bank operations read them (GET banks, GET banks/{bankHash}, POST
 * bank/{bankHash}, the maintenance report): the ob_banks read model, kept by the bank directory
 * schedule. Nothing here calls a bank.
 */

export type BankRow = typeof obBanks.$inferSelect;
type NoticeRow = typeof obBankMaintenanceNotices.$inferSelect;

export interface MaintenanceNoticeView {
  noticeId: string;
  startsAt: string;
  endsAt: string;
  message: string;
  active: boolean;
}

export interface BankView {
  bankHash: string;
  name: string;
  country: string;
  bic: string;
  bankFlowType: BankFlowType;
  supportsPagedTransactions: boolean;
  maintenance: MaintenanceNoticeView[];
}

const toNotice = (row: NoticeRow, now: Date): MaintenanceNoticeView => ({
  noticeId: row.noticeId,
  startsAt: row.startsAt.toISOString(),
  endsAt: row.endsAt.toISOString(),
  message: row.message,
  active: row.startsAt.getTime() <= now.getTime(),
});

/** Notices not yet over, per bank hash. */
async function noticesOf(db: Database, bankHashes: string[], now: Date) {
  const byBank = new Map<string, NoticeRow[]>();
  if (bankHashes.length === 0) return byBank;
  const rows = await db
    .select()
    .from(obBankMaintenanceNotices)
    .where(
      and(inArray(obBankMaintenanceNotices.bankHash, bankHashes), gt(obBankMaintenanceNotices.endsAt, now)),
    )
    .orderBy(asc(obBankMaintenanceNotices.startsAt));
  for (const row of rows) byBank.set(row.bankHash, [...(byBank.get(row.bankHash) ?? []), row]);
  return byBank;
}

const toBankView = (row: BankRow, notices: NoticeRow[], now: Date): BankView => ({
  bankHash: row.bankHash,
  name: row.name,
  country: row.country,
  bic: row.bic,
  bankFlowType: row.bankFlowType,
  supportsPagedTransactions: row.supportsPagedTransactions,
  maintenance: notices.map((notice) => toNotice(notice, now)),
});

/** Active banks, by country then name, optionally of one country. */
export async function listBanks(
  deps: UseCaseDeps,
  { country }: { country?: string | undefined } = {},
): Promise<BankView[]> {
  const { db } = deps;
  const rows = await db
    .select()
    .from(obBanks)
    .where(and(eq(obBanks.active, true), country ? eq(obBanks.country, country) : undefined))
    .orderBy(asc(obBanks.country), asc(obBanks.name));
  const now = new Date();
  const notices = await noticesOf(
    db,
    rows.map((row) => row.bankHash),
    now,
  );
  return rows.map((row) => toBankView(row, notices.get(row.bankHash) ?? [], now));
}

/** An active bank's row; 404 when unknown, inactive, or not of `country` when one is given. */
export async function findBankRow(db: Database, bankHash: string, country?: string): Promise<BankRow> {
  const [row] = await db
    .select()
    .from(obBanks)
    .where(and(eq(obBanks.bankHash, bankHash), eq(obBanks.active, true)));
  if (!row || (country && row.country !== country)) throw Refusal.notFound('Bank');
  return row;
}

/** An active bank with its maintenance notices; 404 as findBankRow. */
export async function findBank(
  deps: UseCaseDeps,
  { bankHash, country }: { bankHash: string; country?: string | undefined },
): Promise<BankView> {
  const row = await findBankRow(deps.db, bankHash, country);
  const now = new Date();
  const notices = await noticesOf(deps.db, [row.bankHash], now);
  return toBankView(row, notices.get(row.bankHash) ?? [], now);
}

export interface MaintenanceReport {
  generatedAt: string;
  notices: (MaintenanceNoticeView & {
    bankHash: string;
    bankName: string;
    country: string;
    fetchedAt: string;
  })[];
}

/** The maintenance windows of active banks, current and upcoming, as the bank directory last read them. */
export async function bankMaintenanceReport(deps: UseCaseDeps): Promise<MaintenanceReport> {
  const now = new Date();
  const rows = await deps.db
    .select({ notice: obBankMaintenanceNotices, bank: obBanks })
    .from(obBankMaintenanceNotices)
    .innerJoin(obBanks, eq(obBanks.bankHash, obBankMaintenanceNotices.bankHash))
    .where(and(eq(obBanks.active, true), gt(obBankMaintenanceNotices.endsAt, now)))
    .orderBy(asc(obBankMaintenanceNotices.startsAt), asc(obBanks.name));
  return {
    generatedAt: now.toISOString(),
    notices: rows.map(({ notice, bank }) => ({
      bankHash: bank.bankHash,
      bankName: bank.name,
      country: bank.country,
      ...toNotice(notice, now),
      fetchedAt: notice.fetchedAt.toISOString(),
    })),
  };
}
