import { boolean, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { lendingCustomers, lendingTenants } from './lending.ts';

/**
 * Payment options' bank verification (decision 0042): the lending platform is an agent of the
 * open-banking gateway, each customer who verifies a bank account is a user of that agent, and each
 * verification is one account-information consent. The gateway's hashes are credentials the platform
 * must present again, so they are stored encrypted (credentials/lending/openbanking-credentials.ts),
 * never in plain.
 */

/**
 * The agent lending provisioned for itself through the gateway's public `signup/agent` (sandbox mode
 * without LENDING_OPENBANKING_AGENT_HASH); one row per gateway base URL.
 */
export const lendingOpenBankingAgents = pgTable('lending_openbanking_agents', {
  gatewayUrl: text('gateway_url').primaryKey(),
  agentId: text('agent_id').notNull(),
  agentHashSealed: text('agent_hash_sealed').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A customer enrolled as a user of the lending agent (`POST /api/8/signup`): one per customer and agent. */
export const lendingOpenBankingUsers = pgTable(
  'lending_openbanking_users',
  {
    customerId: text('customer_id')
      .notNull()
      .references(() => lendingCustomers.id),
    /** SHA-256 of the agent hash the user was enrolled under (the configured hash names no agent id). */
    agentKey: text('agent_key').notNull(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    userId: text('user_id').notNull(),
    userHashSealed: text('user_hash_sealed').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.customerId, table.agentKey] })],
);

/**
 * `pending` (consent started, not yet decided), `verified` (the consent is ACTIVE and one of its accounts
 * is the customer's, held in their name), `not_verified` (decided otherwise; `reason` says why),
 * `skipped` (CancelBankVerification; `reason` is the caller's).
 */
export type BankVerificationStatus = 'pending' | 'verified' | 'not_verified' | 'skipped';

/** One bank verification of a loan; the newest row of a loan is its current one. */
export const lendingBankVerifications = pgTable(
  'lending_bank_verifications',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    customerId: text('customer_id')
      .notNull()
      .references(() => lendingCustomers.id),
    loanId: text('loan_id').notNull(),
    status: text('status', { enum: ['pending', 'verified', 'not_verified', 'skipped'] })
      .$type<BankVerificationStatus>()
      .notNull(),
    bankHash: text('bank_hash'),
    consentId: text('consent_id'),
    /** SHA-256 of the consent's `state` (shown once by the gateway): what SaveData is matched by. */
    stateDigest: text('state_digest'),
    /** The bank's SCA page the frame opens. */
    frameUrl: text('frame_url'),
    scaDeadline: timestamp('sca_deadline', { withTimezone: true }),
    /** The consent's status at the gateway as last read (ACTIVE, REJECTED, ...). */
    consentStatus: text('consent_status'),
    matchedIban: text('matched_iban'),
    reason: text('reason'),
    frameDataSavedAt: timestamp('frame_data_saved_at', { withTimezone: true }),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('lending_bank_verifications_loan_idx').on(table.tenantId, table.loanId, table.createdAt)],
);

/**
 * `pending` (created; the customer has not yet passed the gateway's card page), `active` (saved at the
 * gateway: chargeable), `failed` (the card page's verification was declined or expired; `reason`).
 */
export type CardStatus = 'pending' | 'active' | 'failed';

/**
 * A customer's card as a payment method (decision 0045): lending keeps only the collection gateway's
 * saved-card token (`ctk_…`, encrypted under LENDING_DATA_KEY bound to the card; never the number) and
 * its display data. Created pending by PaymentOptions/Cards; made active by the gateway's notification of
 * its verification (INVOICE `LC-<id>`). Deleting keeps the row (`deleted_at`) without its token.
 */
export const lendingCards = pgTable(
  'lending_cards',
  {
    /** `card_<16 hex>`: the payment method id. */
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    customerId: text('customer_id')
      .notNull()
      .references(() => lendingCustomers.id),
    status: text('status', { enum: ['pending', 'active', 'failed'] })
      .$type<CardStatus>()
      .notNull(),
    isDefault: boolean('is_default').notNull().default(false),
    /** Asked with `isDefault` while pending: becomes the default once active. */
    wantsDefault: boolean('wants_default').notNull().default(false),
    nickname: text('nickname'),
    /** The gateway's token, sealed (credentials/lending/cards.ts); null until active and after deletion. */
    tokenSealed: text('token_sealed'),
    brand: text('brand'),
    last4: text('last4'),
    expiryMonth: integer('expiry_month'),
    expiryYear: integer('expiry_year'),
    reason: text('reason'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    activatedAt: timestamp('activated_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (table) => [index('lending_cards_customer_idx').on(table.tenantId, table.customerId, table.createdAt)],
);
