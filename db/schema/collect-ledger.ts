import { bigint, bigserial, index, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { ledgerTransactionKinds } from '../../domain/collect/ledger.ts';

/**
 * The payment-collection gateway's double-entry ledger (domain/collect/ledger.ts, decision 0029).
 * A transaction is written once under its key (a retried activity finds it and posts nothing); its
 * entries sum to zero per currency; each account's balance row is moved in the same database
 * transaction, so it is always the sum of its entries.
 */
export const collectLedgerTransactions = pgTable(
  'collect_ledger_transactions',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** `settlement:<idn>`, `payout-reserved:<idn>`, `payout-released:<idn>`, `transfer:<reference>`. */
    key: text('key').notNull().unique(),
    kind: text('kind', { enum: ledgerTransactionKinds }).notNull(),
    /** The obligation, hold or payout it belongs to, if any. */
    idn: text('idn'),
    /** Where the money came from (SettlementSource) or who moved it (a transfer's operator). */
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('collect_ledger_transactions_idn_idx').on(table.idn)],
);

/** The lines of a transaction: amount signed, a debit positive, a credit negative (minor units). */
export const collectLedgerEntries = pgTable(
  'collect_ledger_entries',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    transactionId: bigint('transaction_id', { mode: 'number' })
      .notNull()
      .references(() => collectLedgerTransactions.id),
    account: text('account').notNull(),
    currency: text('currency').notNull(),
    amountMinor: bigint('amount_minor', { mode: 'number' }).notNull(),
  },
  (table) => [
    index('collect_ledger_entries_transaction_idx').on(table.transactionId),
    index('collect_ledger_entries_account_idx').on(table.account, table.currency, table.id),
  ],
);

/**
 * Each account's sum of entries per currency (debit positive), kept with the entries. Its row is
 * locked when a provider account is checked for cover before money leaves it.
 */
export const collectLedgerBalances = pgTable(
  'collect_ledger_balances',
  {
    account: text('account').notNull(),
    currency: text('currency').notNull(),
    debitSumMinor: bigint('debit_sum_minor', { mode: 'number' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.account, table.currency] })],
);
