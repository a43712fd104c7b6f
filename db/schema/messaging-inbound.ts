import { index, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { messagingAccounts } from './messaging.ts';

/**
 * Inbound SMS (decision 0087): the numbers the operator assigned to accounts, the messages handsets sent
 * to them (mobile-originated, MO), and the opt-outs their STOP messages recorded.
 */

/** A number the operator assigned to an account: SMS sent to it are the account's. One account per number. */
export const messagingInboundNumbers = pgTable('messaging_inbound_numbers', {
  /** E.164 with the leading + (domain/phone-numbers.ts). */
  number: text('number').primaryKey(),
  accountId: text('account_id')
    .notNull()
    .references(() => messagingAccounts.id),
  /** Where `message.inbound` events of this number go (a webhook endpoint of the account); none: stored only. */
  inboundUrl: text('inbound_url'),
  assignedAt: timestamp('assigned_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Every mobile-originated SMS received, the account's when its number was assigned, else nobody's. */
export const messagingInboundMessages = pgTable(
  'messaging_inbound_messages',
  {
    id: text('id').primaryKey(),
    /**
     * What an SMSC's redelivery of the same deliver_sm has in common (carrier, numbers, coding, text;
     * domain/messaging/inbound.ts): one row per key within INBOUND_DUPLICATE_WINDOW.
     */
    duplicateKey: text('duplicate_key').notNull(),
    /** The owner of `to` when it arrived; null for a number nobody was assigned. */
    accountId: text('account_id').references(() => messagingAccounts.id),
    to: text('to_number').notNull(),
    from: text('from_number').notNull(),
    message: text('message').notNull(),
    /** 'stop' or 'start' when the whole text was an opt-out keyword. */
    keyword: text('keyword', { enum: ['stop', 'start'] }),
    carrier: text('carrier').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('messaging_inbound_messages_duplicate_idx').on(table.duplicateKey, table.receivedAt)],
);

/** A handset's STOP to a sender number: sends from `sender` to `recipient` are refused until its START. */
export const messagingOptOuts = pgTable(
  'messaging_opt_outs',
  {
    /** The number the STOP was sent to (E.164). */
    sender: text('sender').notNull(),
    /** The handset that sent it (E.164). */
    recipient: text('recipient').notNull(),
    accountId: text('account_id')
      .notNull()
      .references(() => messagingAccounts.id),
    /** The inbound message that asked for it. */
    inboundMessageId: text('inbound_message_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.sender, table.recipient] }),
    index('messaging_opt_outs_account_idx').on(table.accountId),
  ],
);
