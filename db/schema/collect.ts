import { bigint, bigserial, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { obligationKinds, obligationStatuses } from '../../domain/collect/obligation.ts';

/**
 * A merchant of the payment-collection gateway, identified by its MIN (`D` + 9 digits, as ePay's).
 * The secret keys the CHECKSUM HMAC, so it must be usable: it is stored encrypted (AES-256-GCM,
 * COLLECT_SECRET_KEY), never hashed, and never returned after creation.
 */
export const collectMerchants = pgTable(
  'collect_merchants',
  {
    min: text('min').primaryKey(),
    name: text('name').notNull(),
    /** `v1.<iv>.<tag>.<ciphertext>` (base64url parts), see credentials/collect/secret-box.ts. */
    secretCiphertext: text('secret_ciphertext').notNull(),
    /** Where status notifications (ENCODED + CHECKSUM + SIGNATURE) are POSTed; none when unset. */
    notifyUrl: text('notify_url'),
    /** Base URL of the merchant's billing system (`/pay/init`, `/pay/confirm`); none when unset. */
    billingUrl: text('billing_url'),
    /** IDNs starting with this prefix belong to the merchant's billing system (begins with 9). */
    billingIdnPrefix: text('billing_idn_prefix'),
    /**
     * Origins (`https://shop.example`, scheme + host + port) under which the card page honours URL_OK /
     * URL_CANCEL posted as form fields outside the signed packet (decision 0013); none: only signed ones.
     */
    returnOrigins: text('return_origins').array().notNull().default([]),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('collect_merchants_billing_prefix_idx').on(table.billingIdnPrefix)],
);

/**
 * Read model of obligations, holds and payouts, keyed by their 10-digit IDN. The API writes the
 * accepted row (PENDING or HELD); the obligation workflow's activities write every later state.
 */
export const collectObligations = pgTable(
  'collect_obligations',
  {
    idn: text('idn').primaryKey(),
    merchantMin: text('merchant_min')
      .notNull()
      .references(() => collectMerchants.min),
    invoice: text('invoice').notNull(),
    kind: text('kind', { enum: obligationKinds }).notNull(),
    status: text('status', { enum: obligationStatuses }).notNull(),
    /** Registered (or held) amount in minor units: exact, never a float. */
    amountMinor: bigint('amount_minor', { mode: 'number' }).notNull(),
    /** What was actually paid (a finalized pre-authorisation may take less than the hold). */
    paidAmountMinor: bigint('paid_amount_minor', { mode: 'number' }),
    currency: text('currency').notNull(),
    description: text('description'),
    /** SHA-256 of the decoded packet in canonical order: a resubmission must match it exactly. */
    payloadDigest: text('payload_digest').notNull(),
    /** Kind-specific fields of the payload (recipient, IBAN, provider account, ...). */
    details: jsonb('details').$type<Record<string, string>>().notNull().default({}),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** Payment or collection: time (YYYYMMDDhhmmss, Europe/Sofia), STAN and BCODE. */
    payTime: text('pay_time'),
    stan: text('stan'),
    bcode: text('bcode'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    settledAt: timestamp('settled_at', { withTimezone: true }),
  },
  (table) => [
    // One obligation per invoice and merchant: the idempotency key of every registration.
    uniqueIndex('collect_obligations_invoice_idx').on(table.merchantMin, table.invoice),
    index('collect_obligations_status_idx').on(table.status, table.expiresAt),
  ],
);

/** Every status an obligation went through, in order (the read model keeps only the latest). */
export const collectObligationEvents = pgTable(
  'collect_obligation_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    idn: text('idn')
      .notNull()
      .references(() => collectObligations.idn),
    status: text('status', { enum: obligationStatuses }).notNull(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
  },
  (table) => [index('collect_obligation_events_idn_idx').on(table.idn, table.id)],
);
