import { bigint, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * Merchant notifications of the payment-collection gateway: one row per (merchant, invoice, status),
 * so a status change is notified exactly once. Written by the activities of the per-merchant
 * notification workflow (`merchant-notifications-<MIN>`); read by GET /collect/notifications.
 */
export const collectNotifications = pgTable(
  'collect_notifications',
  {
    /** `ntf_` + 96 bits of SHA-256 of MIN, invoice, status (and round, after a reversal): the same change is the same row. */
    id: text('id').primaryKey(),
    merchantMin: text('merchant_min').notNull(),
    invoice: text('invoice').notNull(),
    idn: text('idn').notNull(),
    status: text('status', { enum: ['PAID', 'DENIED', 'EXPIRED', 'SAVED', 'REVERSED'] }).notNull(),
    /**
     * How many payments of the obligation had been taken back before this change (decision 0063): a
     * bill paid, reversed by the bank and paid again is notified PAID twice, rounds 0 and 1.
     */
    round: integer('round').notNull().default(0),
    payTime: text('pay_time'),
    stan: text('stan'),
    bcode: text('bcode'),
    amountMinor: bigint('amount_minor', { mode: 'number' }),
    /** The card this INVOICE saved (SAVECARD=1): its `ctk_` token, brand, last four and MM/YYYY expiry. */
    cardToken: text('card_token'),
    cardBrand: text('card_brand'),
    cardLast4: text('card_last4'),
    cardExpiry: text('card_expiry'),
    delivery: text('delivery', { enum: ['pending', 'delivered', 'unknown', 'failed', 'no_url'] }).notNull(),
    attemptCount: integer('attempt_count').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }),
    /** When the workflow plans the next attempt (pending only). */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('collect_notifications_change_round_idx').on(
      table.merchantMin,
      table.invoice,
      table.status,
      table.round,
    ),
    index('collect_notifications_pending_idx').on(table.merchantMin, table.delivery),
  ],
);

/**
 * Every attempt of every notification. One POST carries a batch of notifications; each gets its own
 * row with the merchant's answer for its invoice (`reply`) and the shared HTTP facts.
 */
export const collectNotificationAttempts = pgTable(
  'collect_notification_attempts',
  {
    id: serial('id').primaryKey(),
    notificationId: text('notification_id')
      .notNull()
      .references(() => collectNotifications.id),
    attempt: integer('attempt').notNull(),
    /** The POST this attempt went in (shared by the notifications batched together). */
    batchId: text('batch_id').notNull(),
    batchSize: integer('batch_size').notNull(),
    attemptedAt: timestamp('attempted_at', { withTimezone: true }).notNull(),
    /** Absent when no HTTP reply arrived (connection refused, timeout). */
    httpStatus: integer('http_status'),
    latencyMs: integer('latency_ms').notNull(),
    /** OK, ERR or NO for this invoice; absent when the reply did not answer for it. */
    reply: text('reply', { enum: ['OK', 'ERR', 'NO'] }),
    error: text('error'),
  },
  (table) => [
    uniqueIndex('collect_notification_attempts_idx').on(table.notificationId, table.attempt),
    index('collect_notification_attempts_batch_idx').on(table.batchId),
  ],
);

/**
 * Office payments of IDNs owned by a merchant's billing system, keyed by the transaction id (TID).
 * Written by the activities of the `billing-<idn>-<tid>` workflow.
 */
export const collectBillingPayments = pgTable(
  'collect_billing_payments',
  {
    tid: text('tid').primaryKey(),
    idn: text('idn').notNull(),
    merchantMin: text('merchant_min').notNull(),
    /** PAY (check, take the money, confirm) or CHECK (check only). */
    action: text('action', { enum: ['PAY', 'CHECK'] }).notNull(),
    /**
     * checking → refused | checked (CHECK) | confirming → confirmed | rejected | failed.
     * `rejected`: the merchant refused the confirmation with a final code; `failed`: it never answered.
     */
    status: text('status', {
      enum: ['checking', 'refused', 'checked', 'confirming', 'confirmed', 'rejected', 'failed'],
    }).notNull(),
    /** The DATE sent to the merchant (YYYYMMDDhhmmss, Europe/Sofia). */
    date: text('date').notNull(),
    checkCode: text('check_code'),
    confirmCode: text('confirm_code'),
    amountMinor: bigint('amount_minor', { mode: 'number' }),
    shortDesc: text('short_desc'),
    invoices: text('invoices'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (table) => [index('collect_billing_payments_idn_idx').on(table.idn, table.createdAt)],
);

/** Every call of /pay/init and /pay/confirm for a billing payment. */
export const collectBillingAttempts = pgTable(
  'collect_billing_attempts',
  {
    id: serial('id').primaryKey(),
    tid: text('tid')
      .notNull()
      .references(() => collectBillingPayments.tid),
    phase: text('phase', { enum: ['init', 'confirm'] }).notNull(),
    attempt: integer('attempt').notNull(),
    attemptedAt: timestamp('attempted_at', { withTimezone: true }).notNull(),
    httpStatus: integer('http_status'),
    /** The STATUS code of the reply, when one could be read. */
    code: text('code'),
    latencyMs: integer('latency_ms').notNull(),
    error: text('error'),
  },
  (table) => [uniqueIndex('collect_billing_attempts_idx').on(table.tid, table.phase, table.attempt)],
);
