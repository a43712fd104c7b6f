import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { BULK_KINDS, BULK_STATES } from '../../domain/openbanking/bulk-payments.ts';
import { obAccounts, obAgents, obBanks, obHooks, obUsers } from './openbanking.ts';

/**
 * Bulk payments (docs/openbanking.md, "Bulk payments"; decision 0034): one row per bulk here; each entry
 * is a payment of ob_payments (`bulk_id`, `bulk_seq`), so searches, reports and the audit read one table
 * of payments. The entries live in the database, not in the bulk's workflow: the workflow carries the
 * bulk id and batch cursors only, so a bulk of 10,000 entries stays far inside Temporal's limits.
 */
export const obBulkPayments = pgTable(
  'ob_bulk_payments',
  {
    /** `blk_` + 32 hex; the 32 hex digits are the bank bulk's paymentInformationId (at most 35 characters). */
    id: text('id').primaryKey(),
    agentId: text('agent_id')
      .notNull()
      .references(() => obAgents.id),
    userId: text('user_id')
      .notNull()
      .references(() => obUsers.id),
    kind: text('kind', { enum: BULK_KINDS }).notNull(),
    bankHash: text('bank_hash')
      .notNull()
      .references(() => obBanks.bankHash),
    /** The added account paid from (`request`, `budget-request`); null when the debtor IBAN was given. */
    ibanId: text('iban_id').references(() => obAccounts.id),
    debtorIban: text('debtor_iban').notNull(),
    /** The bank's payment product (`/v1/bulk-payments/{product}`). */
    product: text('product').notNull(),
    hookHash: text('hook_hash').references(() => obHooks.hookHash),
    /** The app of the bank callback path /redirect/{app}/state/{state}. */
    app: text('app').notNull(),
    /** SHA-256 of the callback's `state` (a credential: never stored in the clear). */
    stateDigest: text('state_digest').notNull(),
    /** A retried request (same Idempotency-Key or clientReference of the same user) finds this bulk. */
    idempotencyKey: text('idempotency_key'),
    clientReference: text('client_reference'),
    /** SHA-256 of the request's canonical JSON: the same key with another body is refused. */
    requestDigest: text('request_digest').notNull(),
    status: text('status', { enum: BULK_STATES }).notNull(),
    entryCount: integer('entry_count').notNull(),
    confirmedCount: integer('confirmed_count').notNull().default(0),
    failedCount: integer('failed_count').notNull().default(0),
    /** The bank's paymentId of the bulk and its last transactionStatus. */
    bankPaymentId: text('bank_payment_id'),
    bankStatus: text('bank_status'),
    /** The bank's SCA page, answered again to a retried request. */
    scaRedirectUrl: text('sca_redirect_url'),
    reason: text('reason'),
    scaDeadline: timestamp('sca_deadline', { withTimezone: true }).notNull(),
    callbackAt: timestamp('callback_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    statusChangedAt: timestamp('status_changed_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('ob_bulk_payments_state_idx').on(table.stateDigest),
    uniqueIndex('ob_bulk_payments_user_key_idx')
      .on(table.userId, table.idempotencyKey)
      .where(sql`${table.idempotencyKey} is not null`),
    uniqueIndex('ob_bulk_payments_user_reference_idx')
      .on(table.userId, table.clientReference)
      .where(sql`${table.clientReference} is not null`),
    index('ob_bulk_payments_agent_created_idx').on(table.agentId, table.createdAt),
    index('ob_bulk_payments_hook_idx').on(table.hookHash, table.createdAt),
  ],
);
