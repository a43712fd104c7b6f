import { asc, desc, eq, type SQL, sql } from 'drizzle-orm';
import {
  accountKindOf,
  balanceOf,
  type LedgerAccountKind,
  type LedgerObligation,
  type LedgerTransaction,
  type Posting,
} from '../../domain/collect/ledger.ts';
import type { Database } from '../client.ts';
import type { collectObligations } from '../schema/collect.ts';
import {
  collectLedgerBalances,
  collectLedgerEntries,
  collectLedgerTransactions,
} from '../schema/collect-ledger.ts';

/**
 * The collect ledger's read model (docs/collect.md "Ledger", decision 0029): postings written once in
 * the caller's transaction, and balances and movements read. Both the activities that settle
 * obligations and the operator's use cases use it (decision 0046).
 */

/** The database, or a transaction of it: ledger writes join the caller's transaction. */
export type LedgerDb = Pick<Database, 'select' | 'insert' | 'update' | 'execute'>;

/** Money would leave an account that does not hold it (a provider account never goes negative). */
export class LedgerCoverRefused extends Error {
  constructor(
    readonly account: string,
    readonly currency: string,
    readonly balanceMinor: number,
  ) {
    super(`${account} holds ${balanceMinor} ${currency} minor units: not enough`);
  }
}

/**
 * Writes a ledger transaction (domain/collect/ledger.ts) in the caller's database transaction, once:
 * its key is unique, so a retried activity finds it and posts nothing. Returns whether it was posted.
 * Balance rows are moved in account order (two transactions on the same accounts never deadlock);
 * an account in `cover` whose balance would end below zero throws LedgerCoverRefused, and the
 * caller's transaction rolls back.
 */
export async function postLedgerTransaction(
  tx: LedgerDb,
  transaction: LedgerTransaction,
  options: { detail?: Record<string, unknown>; at?: Date; cover?: readonly string[] } = {},
): Promise<boolean> {
  const at = options.at ?? new Date();
  const [row] = await tx
    .insert(collectLedgerTransactions)
    .values({
      key: transaction.key,
      kind: transaction.kind,
      idn: transaction.idn ?? null,
      detail: options.detail ?? {},
      at,
    })
    .onConflictDoNothing({ target: collectLedgerTransactions.key })
    .returning({ id: collectLedgerTransactions.id });
  if (!row) return false;
  if (transaction.postings.length === 0) return true;
  await tx
    .insert(collectLedgerEntries)
    .values(transaction.postings.map((line) => ({ transactionId: row.id, ...line })));
  const order = (line: Posting) => `${line.account}\u0000${line.currency}`;
  const lines = [...transaction.postings].sort((a, b) =>
    order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0,
  );
  for (const line of lines) {
    const [moved] = await tx
      .insert(collectLedgerBalances)
      .values({
        account: line.account,
        currency: line.currency,
        debitSumMinor: line.amountMinor,
        updatedAt: at,
      })
      .onConflictDoUpdate({
        target: [collectLedgerBalances.account, collectLedgerBalances.currency],
        set: {
          debitSumMinor: sql`${collectLedgerBalances.debitSumMinor} + ${line.amountMinor}`,
          updatedAt: at,
        },
      })
      .returning({ debitSumMinor: collectLedgerBalances.debitSumMinor });
    const debitSumMinor = moved?.debitSumMinor ?? 0;
    if (options.cover?.includes(line.account) && balanceOf(line.account, debitSumMinor) < 0) {
      const before = balanceOf(line.account, debitSumMinor - line.amountMinor);
      throw new LedgerCoverRefused(line.account, line.currency, before);
    }
  }
  return true;
}

/** Ledger lines with their transaction, in the order asked; `where` picks them. */
function ledgerLines(db: LedgerDb, where: SQL, order: 'asc' | 'desc', limit?: number) {
  const query = db
    .select({
      key: collectLedgerTransactions.key,
      kind: collectLedgerTransactions.kind,
      idn: collectLedgerTransactions.idn,
      at: collectLedgerTransactions.at,
      account: collectLedgerEntries.account,
      currency: collectLedgerEntries.currency,
      amountMinor: collectLedgerEntries.amountMinor,
    })
    .from(collectLedgerEntries)
    .innerJoin(
      collectLedgerTransactions,
      eq(collectLedgerTransactions.id, collectLedgerEntries.transactionId),
    )
    .where(where)
    .orderBy(order === 'asc' ? asc(collectLedgerEntries.id) : desc(collectLedgerEntries.id))
    .$dynamic();
  return limit === undefined ? query : query.limit(limit);
}

/** The postings of the transaction with `key` (none when it was never posted). */
export async function postingsOf(tx: LedgerDb, key: string): Promise<Posting[]> {
  const lines = await ledgerLines(tx, eq(collectLedgerTransactions.key, key), 'asc');
  return lines.map(({ account, currency, amountMinor }) => ({ account, currency, amountMinor }));
}

/** The latest `limit` lines posted to `account`, newest first, as posted (debit positive). */
export async function movementsOf(db: LedgerDb, account: string, limit: number) {
  const lines = await ledgerLines(db, eq(collectLedgerEntries.account, account), 'desc', limit);
  return lines.map(({ account: _, ...line }) => line);
}

/** What the ledger needs of an obligation's read-model row. */
export function ledgerObligationOf(row: typeof collectObligations.$inferSelect): LedgerObligation {
  return {
    idn: row.idn,
    kind: row.kind,
    merchantMin: row.merchantMin,
    currency: row.currency,
    amountMinor: row.amountMinor,
    fundedBy: row.details.fundedBy,
  };
}

/** An account's balance per currency, on its normal side (domain/collect/ledger.ts balanceOf). */
export async function balancesOf(
  db: LedgerDb,
  account: string,
): Promise<{ currency: string; balanceMinor: number }[]> {
  const rows = await db
    .select({ currency: collectLedgerBalances.currency, debitSumMinor: collectLedgerBalances.debitSumMinor })
    .from(collectLedgerBalances)
    .where(eq(collectLedgerBalances.account, account))
    .orderBy(asc(collectLedgerBalances.currency));
  return rows.map((row) => ({ currency: row.currency, balanceMinor: balanceOf(account, row.debitSumMinor) }));
}

/** Every account's balance (on its normal side), in account order; `kind` and `currency` narrow it. */
export async function listBalances(
  db: LedgerDb,
  filter: { kind?: LedgerAccountKind | undefined; currency?: string | undefined } = {},
): Promise<{ account: string; kind: LedgerAccountKind; currency: string; balanceMinor: number }[]> {
  const rows = await db
    .select()
    .from(collectLedgerBalances)
    .where(filter.currency ? eq(collectLedgerBalances.currency, filter.currency) : undefined)
    .orderBy(asc(collectLedgerBalances.account), asc(collectLedgerBalances.currency));
  return rows.flatMap((row) => {
    const kind = accountKindOf(row.account);
    if (!kind || (filter.kind && kind !== filter.kind)) return [];
    return [
      {
        account: row.account,
        kind,
        currency: row.currency,
        balanceMinor: balanceOf(row.account, row.debitSumMinor),
      },
    ];
  });
}
