import { and, eq, gt, inArray, sql } from 'drizzle-orm';
import { expect } from 'vitest';
import type { Database } from '../../db/client.ts';
import { collectObligations } from '../../db/schema/collect.ts';
import {
  collectLedgerBalances,
  collectLedgerEntries,
  collectLedgerTransactions,
} from '../../db/schema/collect-ledger.ts';
import { collectBillingPayments } from '../../db/schema/collect-notifications.ts';
import { ledgerKeys } from '../../domain/collect/ledger.ts';

/**
 * The collect ledger's invariant (decision 0029), checked after every test of the service: every
 * transaction balances per currency, all accounts together sum to zero per currency, each account's
 * balance row is the sum of its entries, and every PAID obligation and every billing payment whose
 * money a desk took has its settlement posted.
 */
export async function expectLedgerBalanced(database: Database): Promise<void> {
  // One snapshot for every read: a workflow may still be posting (a payout's reservation, say), and
  // entries and balance rows read at two moments would disagree without anything being wrong.
  await database.transaction((db) => checkLedger(db), {
    isolationLevel: 'repeatable read',
    accessMode: 'read only',
  });
}

async function checkLedger(db: Pick<Database, 'select'>): Promise<void> {
  const sum = sql<string>`sum(${collectLedgerEntries.amountMinor})`;

  const unbalanced = await db
    .select({ key: collectLedgerTransactions.key, currency: collectLedgerEntries.currency, sum })
    .from(collectLedgerEntries)
    .innerJoin(
      collectLedgerTransactions,
      eq(collectLedgerTransactions.id, collectLedgerEntries.transactionId),
    )
    .groupBy(collectLedgerTransactions.key, collectLedgerEntries.currency)
    .having(sql`sum(${collectLedgerEntries.amountMinor}) <> 0`);
  expect(unbalanced, 'ledger transactions that do not balance').toEqual([]);

  const totals = await db
    .select({ currency: collectLedgerEntries.currency, sum })
    .from(collectLedgerEntries)
    .groupBy(collectLedgerEntries.currency);
  expect(
    totals.filter((total) => Number(total.sum) !== 0),
    'currencies whose accounts do not sum to zero',
  ).toEqual([]);

  const sums = await db
    .select({ account: collectLedgerEntries.account, currency: collectLedgerEntries.currency, sum })
    .from(collectLedgerEntries)
    .groupBy(collectLedgerEntries.account, collectLedgerEntries.currency);
  const balances = await db.select().from(collectLedgerBalances);
  const byAccount = (rows: { account: string; currency: string; value: number }[]) =>
    Object.fromEntries(
      rows.filter((row) => row.value !== 0).map((row) => [`${row.account} ${row.currency}`, row.value]),
    );
  expect(
    byAccount(balances.map((row) => ({ ...row, value: row.debitSumMinor }))),
    'balance rows that are not the sum of their entries',
  ).toEqual(byAccount(sums.map((row) => ({ ...row, value: Number(row.sum) }))));

  const unposted = await db
    .select({ idn: collectObligations.idn, kind: collectObligations.kind })
    .from(collectObligations)
    .leftJoin(
      collectLedgerTransactions,
      eq(collectLedgerTransactions.key, sql`${ledgerKeys.settlement('')} || ${collectObligations.idn}`),
    )
    .where(and(eq(collectObligations.status, 'PAID'), sql`${collectLedgerTransactions.id} is null`));
  expect(unposted, 'PAID obligations without their settlement in the ledger').toEqual([]);

  // From `confirming` on the office has the money, whatever the merchant answers to /pay/confirm.
  const unpostedBilling = await db
    .select({ tid: collectBillingPayments.tid, status: collectBillingPayments.status })
    .from(collectBillingPayments)
    .leftJoin(
      collectLedgerTransactions,
      eq(collectLedgerTransactions.key, sql`${ledgerKeys.billing('')} || ${collectBillingPayments.tid}`),
    )
    .where(
      and(
        inArray(collectBillingPayments.status, ['confirming', 'confirmed', 'rejected', 'failed']),
        gt(collectBillingPayments.amountMinor, 0),
        sql`${collectLedgerTransactions.id} is null`,
      ),
    );
  expect(unpostedBilling, 'billing payments a desk took without their posting in the ledger').toEqual([]);
}
