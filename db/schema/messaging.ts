import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/** A customer of the messaging gateway; everything it creates is scoped to it. */
export const messagingAccounts = pgTable('messaging_accounts', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Access tokens (`at` query parameter). Only a SHA-256 hash of the token is stored. */
export const messagingAccessTokens = pgTable(
  'messaging_access_tokens',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => messagingAccounts.id),
    tokenHash: text('token_hash').notNull(),
    label: text('label').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (table) => [uniqueIndex('messaging_access_tokens_hash_idx').on(table.tokenHash)],
);

/** Read model of SMS and chat-app messages, written by the message workflow's activities. */
export const messagingMessages = pgTable(
  'messaging_messages',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => messagingAccounts.id),
    channel: text('channel', { enum: ['sms', 'chatapp'] }).notNull(),
    to: text('to_number').notNull(),
    from: text('from_sender').notNull(),
    /** The text; for a message flagged `containsCode`, masked (domain/messaging/code-messages.ts). */
    message: text('message').notNull(),
    /** The request flagged the text as carrying a one-time code: `message` is masked. */
    containsCode: boolean('contains_code').notNull().default(false),
    /** For a flagged message: the keyed digest of its text (credentials/messaging/code-messages.ts). */
    messageDigest: text('message_digest'),
    encoding: text('encoding', { enum: ['GSM-7', 'UCS-2', 'UTF-8'] }).notNull(),
    parts: integer('parts').notNull(),
    dlrUrl: text('dlr_url'),
    scheduled: timestamp('scheduled_at', { withTimezone: true }),
    status: text('status').notNull(),
    carrierMessageId: text('carrier_message_id'),
    /**
     * A message sent in parts (SMPP_LONG_MESSAGES `udh` or `sar`): each part's carrier id, in order;
     * every part has its own receipt, matched here (decision 0055). Null for a message sent whole.
     */
    carrierPartIds: text('carrier_part_ids').array(),
    /**
     * The carrier the message was submitted to (SmsCarrier.identity): carrier ids are unique only per
     * carrier, and not for ever, so receipts are matched on both (cmd/messaging/receipts.ts).
     */
    carrier: text('carrier'),
    /**
     * The workflow that hands the message over and waits for its receipt (decision 0074): `sms-batch-…`
     * for an SMS sent in a batch, null for a message with a workflow of its own (`sms-<id>`). Receipts
     * are signalled there, and the API shows it so the message leads to its process in the Web UI.
     */
    processId: text('process_id'),
    /**
     * The wire mark (decision 0084): written just before the message's submit_sm goes out, cleared when
     * the carrier certainly did not take it. Set with no carrier id after a crash: the message is in
     * doubt (the carrier may have it), and SMS_IN_DOUBT / SMS_IN_DOUBT_CODES say what becomes of it.
     */
    wireAt: timestamp('wire_at', { withTimezone: true }),
    error: text('error'),
    idempotencyKey: text('idempotency_key'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    submittedAt: timestamp('submitted_at', { withTimezone: true }),
    doneAt: timestamp('done_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('messaging_messages_idempotency_idx').on(table.accountId, table.idempotencyKey),
    index('messaging_messages_carrier_idx').on(table.carrierMessageId, table.carrier),
    index('messaging_messages_carrier_parts_idx').using('gin', table.carrierPartIds),
    index('messaging_messages_scheduled_idx').on(table.accountId, table.scheduled),
  ],
);

/**
 * Accepted messages not yet handed over to their workflow (decision 0066): written in the transaction
 * that writes the message, deleted once the workflow `sms-<id>` exists. A row whose lease has passed is
 * taken by the next hand-over of any API process (after a crash, the process that accepted it is gone).
 */
export const messagingOutbox = pgTable(
  'messaging_outbox',
  {
    messageId: text('message_id')
      .primaryKey()
      .references(() => messagingMessages.id, { onDelete: 'cascade' }),
    /**
     * For a message flagged `containsCode` (its row keeps the text masked): the text, sealed
     * (credentials/messaging/code-messages.ts) until the workflow has it; null otherwise.
     */
    sealedText: text('sealed_text'),
    /**
     * The accepting request's trace context (W3C `traceparent`/`tracestate`, decision 0059) when tracing
     * is on, so the workflow's spans join the request's trace whichever process hands it over.
     */
    traceContext: jsonb('trace_context').$type<Record<string, string>>(),
    /** Taken by a hand-over until then; due when past. */
    leaseUntil: timestamp('lease_until', { withTimezone: true }).notNull().defaultNow(),
    attempts: integer('attempts').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('messaging_outbox_due_idx').on(table.leaseUntil, table.createdAt)],
);

/**
 * Sender-ID registrations: pending until the account confirms it, then confirmed (awaiting the operator)
 * until an operator approves or rejects it; expired when either step does not come in time. Only an
 * approved sender ID may be used as `from` (decision 0028).
 */
export const messagingSenderIds = pgTable(
  'messaging_sender_ids',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => messagingAccounts.id),
    senderId: text('sender_id').notNull(),
    description: text('description'),
    status: text('status', {
      enum: ['pending', 'confirmed', 'approved', 'rejected', 'expired'],
    }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    confirmedAt: timestamp('confirmed_at', { withTimezone: true }),
    /** The operator's decision (approved or rejected): when, why (shown to the account) and a note. */
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    decisionReason: text('decision_reason'),
    operatorNote: text('operator_note'),
  },
  (table) => [
    index('messaging_sender_ids_account_idx').on(table.accountId, table.createdAt),
    // One live registration per sender ID and account; an expired or rejected one may be registered again.
    uniqueIndex('messaging_sender_ids_live_idx')
      .on(table.accountId, table.senderId)
      .where(sql`${table.status} in ('pending', 'confirmed', 'approved')`),
    index('messaging_sender_ids_status_idx').on(table.status, table.confirmedAt),
  ],
);

/**
 * Phone numbers an account sends `from`: pending until the account enters the code sent to the number
 * by SMS, then verified. Only a digest of the current code is kept (decision 0028).
 */
export const messagingSenderNumbers = pgTable(
  'messaging_sender_numbers',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => messagingAccounts.id),
    /** E.164 with the leading + */
    number: text('number').notNull(),
    status: text('status', { enum: ['pending', 'verified'] }).notNull(),
    /** The current code's challenge: a new code is a new challenge (and workflow `numbers-<challengeId>`). */
    challengeId: text('challenge_id'),
    /** HMAC-SHA-256 of the code keyed by the challenge id; null before the code is sent and once verified. */
    codeDigest: text('code_digest'),
    codeExpiresAt: timestamp('code_expires_at', { withTimezone: true }),
    attempts: integer('attempts').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    verifiedAt: timestamp('verified_at', { withTimezone: true }),
  },
  (table) => [uniqueIndex('messaging_sender_numbers_account_idx').on(table.accountId, table.number)],
);

/** Asynchronous number lookups (HLR) and their results. */
export const messagingHlrLookups = pgTable('messaging_hlr_lookups', {
  id: text('id').primaryKey(),
  accountId: text('account_id')
    .notNull()
    .references(() => messagingAccounts.id),
  number: text('number').notNull(),
  callBackUrl: text('callback_url').notNull(),
  status: text('status', { enum: ['pending', 'completed', 'failed'] }).notNull(),
  result: jsonb('result'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  completedAt: timestamp('completed_at', { withTimezone: true }),
});

/**
 * The operator's SMS price lists (decision 0056): one per account that has its own, and the default
 * (`scope` = `default`) for the others. Replaced whole on each upload; the rows are those of the CSV,
 * validated (domain/messaging/price-lists.ts).
 */
export const messagingPriceLists = pgTable('messaging_price_lists', {
  /** `default`, or the messaging account id (acc_…) the list belongs to. */
  scope: text('scope').primaryKey(),
  rows: jsonb('rows')
    .$type<{ country: string; mcc: string; mnc: string; price: string; currency: string }[]>()
    .notNull(),
  uploadedAt: timestamp('uploaded_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The operator's SMS carriers (decision 0079): SMPP binds besides the implicit `default` of the SMPP_*
 * variables. The password is encrypted (credentials/messaging/carriers.ts, MESSAGING_SECRET_KEY).
 */
export const messagingCarriers = pgTable('messaging_carriers', {
  name: text('name').primaryKey(),
  url: text('url').notNull(),
  systemId: text('system_id').notNull(),
  passwordSealed: text('password_sealed').notNull(),
  window: integer('window').notNull().default(32),
  /** submit_sm a second at most, per worker process; null: no limit. */
  submitRate: integer('submit_rate'),
  longMessages: text('long_messages').notNull().default('message_payload'),
  enabled: boolean('enabled').notNull().default(true),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Routes of SMS to carriers by destination prefix or MCC(-MNC), with an ordered failover list (0079). */
export const messagingRoutes = pgTable('messaging_routes', {
  name: text('name').primaryKey(),
  prefix: text('prefix'),
  mccMnc: text('mcc_mnc'),
  priority: integer('priority').notNull().default(100),
  carriers: text('carriers').array().notNull(),
  enabled: boolean('enabled').notNull().default(true),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
