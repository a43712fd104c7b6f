import { z } from '@hono/zod-openapi';
import { and, asc, eq, gt, inArray } from 'drizzle-orm';
import { getCountries } from 'libphonenumber-js';
import { Refusal } from '../../application/shared/refusal.ts';
import type { Database } from '../../db/client.ts';
import { obBankMaintenanceNotices, obBanks } from '../../db/schema/openbanking.ts';
import { BANK_FLOW_TYPES } from '../../domain/openbanking/xs2a.ts';

/**
 * The bank record of the gateway's bank endpoints (GET banks, GET banks/{bankHash}, POST bank/{bankHash})
 * and the reads behind them. Banks come from the ob_banks read model (kept by the bank directory
 * schedule); nothing here calls a bank.
 */

type BankRow = typeof obBanks.$inferSelect;
type NoticeRow = typeof obBankMaintenanceNotices.$inferSelect;

const KNOWN_COUNTRIES = new Set<string>(getCountries());

/** The `country` query parameter: ISO 3166-1 alpha-2, either case. */
export const countryQueryField = z
  .string()
  .transform((value) => value.toUpperCase())
  .refine(
    (value) => /^[A-Z]{2}$/.test(value) && KNOWN_COUNTRIES.has(value),
    'must be an ISO 3166-1 alpha-2 country code',
  )
  .optional()
  .openapi({ description: 'Only banks of this country (ISO 3166-1 alpha-2)', example: 'BG' });

export const bankHashParam = z
  .string()
  .regex(/^[0-9a-f]{24}$/, 'must be 24 lower-case hex characters')
  .openapi({
    param: { name: 'bankHash', in: 'path' },
    description: 'Id of a bank, from GET banks',
    example: '5b0f1f3c9d2e4a7b8c6d0e1f',
  });

export const maintenanceNoticeSchema = z
  .object({
    noticeId: z
      .string()
      .openapi({ description: 'The bank’s id of the notice', example: 'weekly-2026-11-29' }),
    startsAt: z
      .string()
      .openapi({ description: 'Start of the window (ISO 8601)', example: '2026-11-29T01:00:00.000Z' }),
    endsAt: z
      .string()
      .openapi({ description: 'End of the window (ISO 8601)', example: '2026-11-29T03:00:00.000Z' }),
    message: z
      .string()
      .openapi({ description: 'The bank’s message', example: 'Planned maintenance of online banking' }),
    active: z.boolean().openapi({ description: 'The window is on now: the bank answers 503 until endsAt' }),
  })
  .openapi('BankMaintenanceNotice');

export const bankSchema = z
  .object({
    bankHash: z
      .string()
      .openapi({ description: 'Id of the bank in paths and bodies', example: '5b0f1f3c9d2e4a7b8c6d0e1f' }),
    name: z.string().openapi({ example: 'Sandbox Bank A' }),
    country: z.string().openapi({ description: 'ISO 3166-1 alpha-2', example: 'BG' }),
    bic: z.string().openapi({ example: 'SBXABGSF' }),
    bankFlowType: z.enum(BANK_FLOW_TYPES).openapi({
      description:
        'How the user authenticates at the bank: `redirect` (the bank’s own page), `embedded` (credentials entered in ' +
        'your frontend) or `decoupled` (approval in the bank’s app). See POST bank/{bankHash}.',
      example: 'redirect',
    }),
    supportsPagedTransactions: z.boolean().openapi({
      description: 'The bank pages transactions itself: GET /api/8/paged-transactions works for its accounts',
      example: false,
    }),
    maintenance: z.array(maintenanceNoticeSchema).openapi({
      description: 'Current and announced maintenance windows (from the bank, refreshed every few minutes)',
    }),
  })
  .openapi('Bank');
export type BankRecord = z.infer<typeof bankSchema>;

export const toNotice = (row: NoticeRow, now: Date) => ({
  noticeId: row.noticeId,
  startsAt: row.startsAt.toISOString(),
  endsAt: row.endsAt.toISOString(),
  message: row.message,
  active: row.startsAt.getTime() <= now.getTime(),
});

/** Notices not yet over, per bank hash. */
export async function noticesOf(db: Database, bankHashes: string[], now = new Date()) {
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

export function toBankRecord(row: BankRow, notices: NoticeRow[], now = new Date()): BankRecord {
  return {
    bankHash: row.bankHash,
    name: row.name,
    country: row.country,
    bic: row.bic,
    bankFlowType: row.bankFlowType,
    supportsPagedTransactions: row.supportsPagedTransactions,
    maintenance: notices.map((notice) => toNotice(notice, now)),
  };
}

/** Active banks, by country then name, optionally of one country. */
export async function listBanks(db: Database, country?: string): Promise<BankRecord[]> {
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
  return rows.map((row) => toBankRecord(row, notices.get(row.bankHash) ?? [], now));
}

/** An active bank; 404 when unknown, inactive, or not of `country` when one is given. */
export async function findBank(
  db: Database,
  bankHash: string,
  country?: string,
): Promise<BankRecord & { row: BankRow }> {
  const [row] = await db
    .select()
    .from(obBanks)
    .where(and(eq(obBanks.bankHash, bankHash), eq(obBanks.active, true)));
  if (!row || (country && row.country !== country)) throw Refusal.notFound('Bank');
  const now = new Date();
  const notices = await noticesOf(db, [row.bankHash], now);
  return { ...toBankRecord(row, notices.get(row.bankHash) ?? [], now), row };
}
