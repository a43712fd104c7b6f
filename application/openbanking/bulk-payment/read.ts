import { and, asc, count, desc, eq, gte, inArray, lt, type SQL } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { obBulkPayments } from '../../../db/schema/openbanking-bulk-payments.ts';
import { obPayments } from '../../../db/schema/openbanking-payments.ts';
import type { BulkKind, BulkState } from '../../../domain/openbanking/bulk-payments.ts';
import type { PaymentStatus } from '../../../domain/openbanking/payments.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';
import { requireAgentHook } from '../hooks.ts';
import { type AgentPaymentView, dayRange, toAgentPayment } from '../payment/search.ts';

import type { BulkRow } from './start.ts';

/** A bulk's record as the agent reads it: its bulks by hook, and the search with a window of entries. */

export interface BulkView {
  bulkId: string;
  kind: BulkKind;
  status: BulkState;
  userId: string;
  bankHash: string;
  ibanId: string | null;
  debtorIban: string;
  hookHash: string | null;
  clientReference: string | null;
  entries: number;
  confirmed: number;
  failed: number;
  waiting: number;
  bankStatus: string | null;
  reason: string | null;
  createdAt: string;
  statusChangedAt: string;
  finishedAt: string | null;
}

type EntryCounts = { confirmed: number; failed: number; waiting: number };

/** The entries of each bulk by status, counted now (a bulk in progress moves batch by batch). */
async function entryCountsOf(db: Database, bulkIds: string[]) {
  const counts = new Map<string, EntryCounts>();
  if (bulkIds.length === 0) return counts;
  const rows = await db
    .select({ bulkId: obPayments.bulkId, status: obPayments.status, value: count() })
    .from(obPayments)
    .where(inArray(obPayments.bulkId, bulkIds))
    .groupBy(obPayments.bulkId, obPayments.status);
  for (const row of rows) {
    const entry = counts.get(row.bulkId!) ?? { confirmed: 0, failed: 0, waiting: 0 };
    if (row.status === 'CONFIRMED') entry.confirmed = row.value;
    else if (row.status === 'FAILED') entry.failed = row.value;
    else entry.waiting = row.value;
    counts.set(row.bulkId!, entry);
  }
  return counts;
}

const toBulkView = (row: BulkRow, counts: EntryCounts | undefined): BulkView => ({
  bulkId: row.id,
  kind: row.kind,
  status: row.status,
  userId: row.userId,
  bankHash: row.bankHash,
  ibanId: row.ibanId,
  debtorIban: row.debtorIban,
  hookHash: row.hookHash,
  clientReference: row.clientReference,
  entries: row.entryCount,
  confirmed: counts?.confirmed ?? 0,
  failed: counts?.failed ?? 0,
  waiting: counts?.waiting ?? row.entryCount,
  bankStatus: row.bankStatus,
  reason: row.reason,
  createdAt: row.createdAt.toISOString(),
  statusChangedAt: row.statusChangedAt.toISOString(),
  finishedAt: row.finishedAt?.toISOString() ?? null,
});

/** The bulks started with a hook of the agent, the newest `limit`, with how many there are; 404 for another's hook. */
export async function bulksOfHook(
  deps: UseCaseDeps,
  { agentId, hookHash, limit }: { agentId: string; hookHash: string; limit: number },
): Promise<{ hookHash: string; total: number; bulks: BulkView[] }> {
  const { db } = deps;
  await requireAgentHook(db, agentId, hookHash);
  const where = and(eq(obBulkPayments.hookHash, hookHash), eq(obBulkPayments.agentId, agentId));
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(obBulkPayments)
      .where(where)
      .orderBy(desc(obBulkPayments.createdAt), desc(obBulkPayments.id))
      .limit(limit),
    db.select({ value: count() }).from(obBulkPayments).where(where),
  ]);
  const counts = await entryCountsOf(
    db,
    rows.map((row) => row.id),
  );
  return {
    hookHash,
    total: total?.value ?? 0,
    bulks: rows.map((row) => toBulkView(row, counts.get(row.id))),
  };
}

export const BULK_SORT_FIELDS = ['createdAt', 'statusChangedAt', 'entries'] as const;

export interface BulkSearch {
  criteria?:
    | {
        statuses?: BulkState[] | undefined;
        kinds?: BulkKind[] | undefined;
        bulkId?: string | undefined;
        userId?: string | undefined;
        bankHash?: string | undefined;
        hookHash?: string | undefined;
        clientReference?: string | undefined;
        dateFrom?: string | undefined;
        dateTo?: string | undefined;
      }
    | undefined;
  sortBy: (typeof BULK_SORT_FIELDS)[number];
  sortDirection: 'asc' | 'desc';
  page: number;
  size: number;
  entryStatuses?: PaymentStatus[] | undefined;
  entriesOffset: number;
  entriesLimit: number;
}

const SORT_COLUMNS = {
  createdAt: obBulkPayments.createdAt,
  statusChangedAt: obBulkPayments.statusChangedAt,
  entries: obBulkPayments.entryCount,
} as const;

/** POST bulk-payments/search: the agent's bulks matching the criteria, sorted and paged, with a window of entries. */
export async function searchBulks(
  deps: UseCaseDeps,
  { agentId, ...input }: BulkSearch & { agentId: string },
): Promise<{
  page: number;
  size: number;
  total: number;
  items: (BulkView & { payments: AgentPaymentView[] })[];
}> {
  const { db } = deps;
  const criteria = input.criteria ?? {};
  const conditions: (SQL | undefined)[] = [eq(obBulkPayments.agentId, agentId)];
  if (criteria.statuses) conditions.push(inArray(obBulkPayments.status, criteria.statuses));
  if (criteria.kinds) conditions.push(inArray(obBulkPayments.kind, criteria.kinds));
  if (criteria.bulkId) conditions.push(eq(obBulkPayments.id, criteria.bulkId));
  if (criteria.userId) conditions.push(eq(obBulkPayments.userId, criteria.userId));
  if (criteria.bankHash) conditions.push(eq(obBulkPayments.bankHash, criteria.bankHash));
  if (criteria.hookHash) conditions.push(eq(obBulkPayments.hookHash, criteria.hookHash));
  if (criteria.clientReference) conditions.push(eq(obBulkPayments.clientReference, criteria.clientReference));
  if (criteria.dateFrom)
    conditions.push(gte(obBulkPayments.createdAt, dayRange(criteria.dateFrom, criteria.dateFrom).from));
  if (criteria.dateTo)
    conditions.push(lt(obBulkPayments.createdAt, dayRange(criteria.dateTo, criteria.dateTo).to));
  const where = and(...conditions);
  const order = input.sortDirection === 'asc' ? asc : desc;
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(obBulkPayments)
      .where(where)
      .orderBy(order(SORT_COLUMNS[input.sortBy]), order(obBulkPayments.id))
      .limit(input.size)
      .offset((input.page - 1) * input.size),
    db.select({ value: count() }).from(obBulkPayments).where(where),
  ]);
  const counts = await entryCountsOf(
    db,
    rows.map((row) => row.id),
  );
  const items = await Promise.all(
    rows.map(async (row) => {
      const entries =
        input.entriesLimit === 0
          ? []
          : await db
              .select()
              .from(obPayments)
              .where(
                and(
                  eq(obPayments.bulkId, row.id),
                  eq(obPayments.agentId, agentId),
                  gte(obPayments.bulkSeq, input.entriesOffset),
                  input.entryStatuses ? inArray(obPayments.status, input.entryStatuses) : undefined,
                ),
              )
              .orderBy(asc(obPayments.bulkSeq))
              .limit(input.entriesLimit);
      return { ...toBulkView(row, counts.get(row.id)), payments: entries.map(toAgentPayment) };
    }),
  );
  return { page: input.page, size: input.size, total: total?.value ?? 0, items };
}
