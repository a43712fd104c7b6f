import { asc, eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { collectObligations } from '../../db/schema/collect.ts';
import {
  collectLedgerBalances,
  collectLedgerEntries,
  collectLedgerTransactions,
} from '../../db/schema/collect-ledger.ts';
import {
  accountKindOf,
  balanceOf,
  type LedgerAccountKind,
  type LedgerObligation,
  type LedgerTransaction,
  type Posting,
  payoutReservation,
} from '../../domain/collect/ledger.ts';

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

/** The postings of the transaction with `key` (none when it was never posted). */
export async function postingsOf(tx: LedgerDb, key: string): Promise<Posting[]> {
  return tx
    .select({
      account: collectLedgerEntries.account,
      currency: collectLedgerEntries.currency,
      amountMinor: collectLedgerEntries.amountMinor,
    })
    .from(collectLedgerEntries)
    .innerJoin(
      collectLedgerTransactions,
      eq(collectLedgerTransactions.id, collectLedgerEntries.transactionId),
    )
    .where(eq(collectLedgerTransactions.key, key))
    .orderBy(asc(collectLedgerEntries.id));
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

export interface LedgerActivityDeps {
  db: Database;
}

export function createLedgerActivities({ db }: LedgerActivityDeps) {
  return {
    /**
     * A cash payout's workflow has started: its amount is reserved from the merchant (or the funding
     * provider account, which the API reserved already) into payouts owed, once.
     */
    async reservePayout(input: { idn: string; at: string }): Promise<void> {
      await db.transaction(async (tx) => {
        const [row] = await tx.select().from(collectObligations).where(eq(collectObligations.idn, input.idn));
        if (!row) throw new Error(`no obligation ${input.idn}`);
        await postLedgerTransaction(tx, payoutReservation(ledgerObligationOf(row)), {
          at: new Date(input.at),
        });
      });
    },
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
