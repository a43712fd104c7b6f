import {
  bigint,
  index,
  pgTable,
  primaryKey,
  serial,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/**
 * One-touch payments (payment-collection gateway): applications, the devices paired with them, pairing
 * codes, access tokens and the payments made through them. Codes and tokens are stored only as SHA-256
 * hashes; the application secret must be usable for HMAC, so it is stored encrypted (AES-256-GCM).
 */
export const collectOneTouchApps = pgTable('collect_one_touch_apps', {
  /** APPID: sent with every request. */
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  /** The application SECRET, `v1.<iv>.<tag>.<data>` (credentials/collect/secret-box.ts, AAD `one-touch:<APPID>`). */
  secretCiphertext: text('secret_ciphertext').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A device registered by `code/get`, with the descriptive fields it sent. */
export const collectOneTouchDevices = pgTable(
  'collect_one_touch_devices',
  {
    appId: text('app_id')
      .notNull()
      .references(() => collectOneTouchApps.id),
    deviceId: text('device_id').notNull(),
    deviceName: text('device_name'),
    brand: text('brand'),
    os: text('os'),
    model: text('model'),
    osVersion: text('os_version'),
    phone: text('phone'),
    userType: text('user_type'),
    /** The sandbox user's client number (KIN) and payment instrument, fixed at registration. */
    kin: text('kin').notNull(),
    instrumentId: text('instrument_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.appId, table.deviceId] })],
);

/** Pairing codes: one per APPID + DEVICEID + KEY, single use, short-lived. */
export const collectOneTouchCodes = pgTable(
  'collect_one_touch_codes',
  {
    id: serial('id').primaryKey(),
    appId: text('app_id').notNull(),
    deviceId: text('device_id').notNull(),
    key: text('key').notNull(),
    codeHash: text('code_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('collect_one_touch_codes_key_idx').on(table.appId, table.deviceId, table.key),
    uniqueIndex('collect_one_touch_codes_hash_idx').on(table.codeHash),
  ],
);

/** Access tokens, bound to one application and one device. */
export const collectOneTouchTokens = pgTable(
  'collect_one_touch_tokens',
  {
    id: text('id').primaryKey(),
    appId: text('app_id').notNull(),
    deviceId: text('device_id').notNull(),
    tokenHash: text('token_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    invalidatedAt: timestamp('invalidated_at', { withTimezone: true }),
  },
  (table) => [uniqueIndex('collect_one_touch_tokens_hash_idx').on(table.tokenHash)],
);

/**
 * Payments made through one-touch. `id` is the application's payment ID (or one issued by
 * `payment/init`), unique per application: a repeated request reports the recorded payment.
 */
export const collectOneTouchPayments = pgTable(
  'collect_one_touch_payments',
  {
    appId: text('app_id').notNull(),
    id: text('id').notNull(),
    deviceId: text('device_id').notNull(),
    /** `registered` (device token) or `noreg` (CHECKSUM with the application secret). */
    kind: text('kind', { enum: ['registered', 'noreg'] }).notNull(),
    state: text('state', { enum: ['initialized', 'complete', 'declined'] }).notNull(),
    /** Amount in stotinki (minor units), as one-touch clients send it. Absent while only initialized. */
    amount: bigint('amount', { mode: 'number' }),
    recipient: text('recipient'),
    recipientType: text('recipient_type'),
    description: text('description'),
    reason: text('reason'),
    instrumentId: text('instrument_id'),
    show: text('show'),
    saveCard: text('save_card'),
    /** The transaction number (`NO`) of a completed payment. */
    transactionNo: text('transaction_no'),
    /** An initialized payment ID must be used before this time. */
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (table) => [
    primaryKey({ columns: [table.appId, table.id] }),
    index('collect_one_touch_payments_device_idx').on(table.appId, table.deviceId),
  ],
);
