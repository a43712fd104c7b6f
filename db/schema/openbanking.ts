import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { CONSENT_KINDS, CONSENT_STATES } from '../../domain/openbanking/consents.ts';
import { HOOK_BODY_FORMATS } from '../../domain/openbanking/hook-events.ts';
import { KYC_STATUSES } from '../../domain/openbanking/kyc.ts';
import { BANK_FLOW_TYPES, CONSENT_STATUSES } from '../../domain/openbanking/xs2a.ts';

/**
 * Read models of the open-banking gateway (tables `ob_*`), one section per part of the service.
 * Add new tables under their own section heading so that parallel edits stay additive.
 */

// ─── Agents, users and identity credentials ─────────────────────────────────────────────────────

/** An integrating partner (the spec's agent); everything below it is scoped to it. */
export const obAgents = pgTable('ob_agents', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  email: text('email'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A customer enrolled by an agent (SignupDTO fields). Deleting marks `deletedAt`; rows are kept. */
export const obUsers = pgTable(
  'ob_users',
  {
    id: text('id').primaryKey(),
    agentId: text('agent_id')
      .notNull()
      .references(() => obAgents.id),
    companyName: text('company_name'),
    uic: text('uic'),
    name: text('name').notNull(),
    middleName: text('middle_name'),
    family: text('family').notNull(),
    identityHash: text('identity_hash'),
    email: text('email').notNull(),
    webhookUrl: text('webhook_url'),
    /**
     * How hook calls to `webhookUrl` are written (decision 0064): `envelope` (JSON carrying the JWS) for
     * users enrolled from that release on, `jose` (the bare compact JWS of 0.1.0) for those before.
     */
    webhookBodyFormat: text('webhook_body_format', { enum: HOOK_BODY_FORMATS }).notNull().default('envelope'),
    kycStatus: text('kyc_status', { enum: KYC_STATUSES }).notNull().default('NOT_STARTED'),
    kycReason: text('kyc_reason'),
    kycUpdatedAt: timestamp('kyc_updated_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (table) => [
    index('ob_users_agent_created_idx').on(table.agentId, table.createdAt),
    // One live user per e-mail address and agent (compared case-insensitively).
    uniqueIndex('ob_users_agent_email_idx')
      .on(table.agentId, sql`lower(${table.email})`)
      .where(sql`${table.deletedAt} is null`),
  ],
);

export const CREDENTIAL_KINDS = ['agent', 'user', 'public', 'admin'] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/**
 * Identity hashes (x-agent-hash, x-user-hash, x-public-hash, x-admin-hash). Only the SHA-256 digest of a
 * hash is stored; a request is matched by the digest of what it presents.
 */
export const obCredentials = pgTable(
  'ob_credentials',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: CREDENTIAL_KINDS }).notNull(),
    digest: text('digest').notNull(),
    /** Set for agent, public and user credentials. */
    agentId: text('agent_id').references(() => obAgents.id),
    /** Set for user credentials. */
    userId: text('user_id').references(() => obUsers.id),
    label: text('label'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('ob_credentials_digest_idx').on(table.digest),
    index('ob_credentials_user_idx').on(table.userId),
  ],
);

// ─── Hooks ───────────────────────────────────────────────────────────────────────────────────────

/** A registered webhook (createhook): called back when adding an IBAN or a payment finishes. */
export const obHooks = pgTable(
  'ob_hooks',
  {
    /** The hook hash handed to the integrator; an identifier, not a credential. */
    hookHash: text('hook_hash').primaryKey(),
    agentId: text('agent_id')
      .notNull()
      .references(() => obAgents.id),
    /** The user who registered it; null when registered with an agent or public hash. */
    userId: text('user_id').references(() => obUsers.id),
    url: text('url').notNull(),
    redirectUrl: text('redirect_url'),
    events: jsonb('events').$type<string[]>().notNull(),
    /**
     * How its calls are written (decision 0064): `envelope` (a Standard Webhooks JSON body carrying the
     * JWS; the default) or `jose` (the bare compact JWS, as hooks registered before that release keep).
     */
    bodyFormat: text('body_format', { enum: HOOK_BODY_FORMATS }).notNull().default('envelope'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('ob_hooks_agent_idx').on(table.agentId)],
);

// ─── Signing keys (JWS / JWKS) ──────────────────────────────────────────────────────────────────

/**
 * Keys that sign user tokens and webhook payloads. One `current` key signs; `retired` keys stay in the
 * published JWKS until OPENBANKING_SIGNING_KEY_RETENTION after their retirement, so what they signed
 * stays verifiable. Private keys are encrypted at rest (AES-256-GCM, OPENBANKING_KEY_ENCRYPTION_KEY).
 */
export const obSigningKeys = pgTable(
  'ob_signing_keys',
  {
    kid: text('kid').primaryKey(),
    alg: text('alg').notNull(),
    status: text('status', { enum: ['current', 'retired'] }).notNull(),
    publicJwk: jsonb('public_jwk').$type<Record<string, unknown>>().notNull(),
    /** base64url(iv).base64url(ciphertext).base64url(tag) of the private JWK. */
    privateKeyEncrypted: text('private_key_encrypted').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    retiredAt: timestamp('retired_at', { withTimezone: true }),
  },
  (table) => [
    // At most one current key: concurrent first uses or rotations cannot leave two.
    uniqueIndex('ob_signing_keys_current_idx').on(table.status).where(sql`${table.status} = 'current'`),
  ],
);

// ─── Consents requests (cgate) ──────────────────────────────────────────────────────────────────

/** An operator's request that a user grant a consent for given banks and scopes. */
export const obConsentsRequests = pgTable(
  'ob_consents_requests',
  {
    id: text('id').primaryKey(),
    agentId: text('agent_id')
      .notNull()
      .references(() => obAgents.id),
    userId: text('user_id')
      .notNull()
      .references(() => obUsers.id),
    /** Bank hashes the user is asked to connect; empty means any bank. */
    banks: jsonb('banks').$type<string[]>().notNull(),
    scopes: jsonb('scopes').$type<string[]>().notNull(),
    message: text('message'),
    status: text('status', { enum: ['open', 'fulfilled'] }).notNull(),
    /** Set when fulfilled: the consent that fulfilled it. */
    consentId: text('consent_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    fulfilledAt: timestamp('fulfilled_at', { withTimezone: true }),
  },
  (table) => [index('ob_consents_requests_user_idx').on(table.userId, table.createdAt)],
);

// ─── E-mail outbox ──────────────────────────────────────────────────────────────────────────────

/** E-mails the gateway would send (AIS links); there is no mail server, so they are recorded here. */
export const obEmailOutbox = pgTable(
  'ob_email_outbox',
  {
    id: text('id').primaryKey(),
    agentId: text('agent_id')
      .notNull()
      .references(() => obAgents.id),
    userId: text('user_id')
      .notNull()
      .references(() => obUsers.id),
    kind: text('kind').notNull(),
    recipient: text('recipient').notNull(),
    subject: text('subject').notNull(),
    /** The message as sent (it carries the link: the outbox is the sent mail). */
    body: text('body').notNull(),
    /** SHA-256 (hex) of the link's token (a bearer credential), to tell which message a link came from. */
    tokenDigest: text('token_digest'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('ob_email_outbox_user_idx').on(table.userId, table.createdAt)],
);

// ─── Bank directory and maintenance notices ─────────────────────────────────────────────────────

/**
 * The banks the gateway connects to, synchronised from OPENBANKING_BANKS and/or the bank directory at
 * OPENBANKING_BANK_DIRECTORY_URL by the `ob-bank-directory` schedule. A bank that leaves the
 * configuration is marked inactive (consents may still point at it), never deleted.
 */
export const obBanks = pgTable(
  'ob_banks',
  {
    /** Public id of the bank (`bankHash` in paths), derived from `code`. */
    bankHash: text('bank_hash').primaryKey(),
    /** Key of the bank in the configuration or directory. */
    code: text('code').notNull(),
    name: text('name').notNull(),
    /** ISO 3166-1 alpha-2. */
    country: text('country').notNull(),
    bic: text('bic').notNull(),
    /** The bank's XS2A (NextGenPSD2 1.3) base URL; `/v1/...` paths are appended. */
    xs2aBaseUrl: text('xs2a_base_url').notNull(),
    /**
     * Hosts besides the base URL's whose links (`_links.download`, start links, …) the gateway follows
     * as this bank's own (`host` or `host:port`, as the directory lists them; decision 0082).
     */
    linkHosts: jsonb('link_hosts').$type<string[]>().notNull().default([]),
    bankFlowType: text('bank_flow_type', { enum: BANK_FLOW_TYPES }).notNull(),
    /** The bank pages its transactions (`_links.next`): GET paged-transactions works for it. */
    supportsPagedTransactions: boolean('supports_paged_transactions').notNull(),
    source: text('source', { enum: ['config', 'directory'] }).notNull(),
    active: boolean('active').notNull().default(true),
    /** Last successful read of the bank's maintenance notices, and the last failure since. */
    maintenanceCheckedAt: timestamp('maintenance_checked_at', { withTimezone: true }),
    maintenanceError: text('maintenance_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('ob_banks_code_idx').on(table.code),
    index('ob_banks_country_idx').on(table.country),
  ],
);

/** Maintenance windows a bank announces (current and upcoming); replaced on every refresh. */
export const obBankMaintenanceNotices = pgTable(
  'ob_bank_maintenance_notices',
  {
    bankHash: text('bank_hash')
      .notNull()
      .references(() => obBanks.bankHash),
    /** The bank's id of the notice. */
    noticeId: text('notice_id').notNull(),
    startsAt: timestamp('starts_at', { withTimezone: true }).notNull(),
    endsAt: timestamp('ends_at', { withTimezone: true }).notNull(),
    message: text('message').notNull(),
    fetchedAt: timestamp('fetched_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.bankHash, table.noticeId] }),
    index('ob_bank_maintenance_notices_ends_idx').on(table.endsAt),
  ],
);

// ─── Consents and account information (read model of the consent + SCA flow) ───────────────────

/**
 * One consent: inserted by POST consent (AWAITING_SCA), then moved by the consent workflow
 * (`ob-consent-<consentId>`) and by refreshes. States: domain/openbanking/consents.ts.
 */
export const obConsents = pgTable(
  'ob_consents',
  {
    id: text('id').primaryKey(),
    /**
     * SHA-256 (hex) of the unique `state` of the bank callback path and the hook call. The state itself
     * is a credential and is not stored: it is answered once by POST consent, is in the redirect URIs
     * given to the bank and in the consent workflow's input (which hands it to the hook call).
     */
    stateDigest: text('state_digest').notNull(),
    /** The client application in the callback path `/redirect/{app}/state/{state}`. */
    app: text('app').notNull(),
    agentId: text('agent_id')
      .notNull()
      .references(() => obAgents.id),
    userId: text('user_id')
      .notNull()
      .references(() => obUsers.id),
    bankHash: text('bank_hash')
      .notNull()
      .references(() => obBanks.bankHash),
    hookHash: text('hook_hash').references(() => obHooks.hookHash),
    kind: text('kind', { enum: CONSENT_KINDS }).notNull(),
    scopes: jsonb('scopes').$type<string[]>().notNull(),
    /** IBANs the consent was asked for; empty: the user picks at the bank. */
    requestedIbans: jsonb('requested_ibans').$type<string[]>().notNull(),
    recurring: boolean('recurring').notNull(),
    /** YYYY-MM-DD, last day the bank consent may be used. */
    validUntil: text('valid_until').notNull(),
    frequencyPerDay: integer('frequency_per_day').notNull(),
    status: text('status', { enum: CONSENT_STATES }).notNull(),
    /** Why it is not ACTIVE (rejected, abandoned, failed), for people. */
    statusReason: text('status_reason'),
    /** The bank's consent id and last known XS2A status. */
    bankConsentId: text('bank_consent_id'),
    bankStatus: text('bank_status', { enum: CONSENT_STATUSES }),
    bankStatusCheckedAt: timestamp('bank_status_checked_at', { withTimezone: true }),
    scaRedirectUrl: text('sca_redirect_url'),
    /**
     * OAuth2 as SCA approach (decision 0067): the bank's token endpoint, and the consent's access and
     * refresh tokens there, encrypted (credentials/openbanking/bank-tokens.ts: AES-256-GCM bound to the
     * consent's row), with the access token's expiry. Null for the other approaches.
     */
    bankTokenEndpoint: text('bank_token_endpoint'),
    bankAccessTokenSealed: text('bank_access_token_sealed'),
    bankRefreshTokenSealed: text('bank_refresh_token_sealed'),
    bankTokenExpiresAt: timestamp('bank_token_expires_at', { withTimezone: true }),
    /** The SCA must complete before this; then the consent is ABANDONED. */
    scaDeadline: timestamp('sca_deadline', { withTimezone: true }).notNull(),
    /** The bank's callback reached the gateway. */
    callbackAt: timestamp('callback_at', { withTimezone: true }),
    /** Last time the bank answered 429 ACCESS_EXCEEDED (frequencyPerDay used up for the day). */
    accessExceededAt: timestamp('access_exceeded_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('ob_consents_state_digest_idx').on(table.stateDigest),
    index('ob_consents_user_idx').on(table.userId, table.createdAt),
  ],
);

/**
 * A bank account of a user (GET ibans), added by an ACTIVE consent. `id` is the opaque ibanId. The same
 * IBAN at the same bank keeps its ibanId when a later consent covers it again (the newer consent wins).
 */
export const obAccounts = pgTable(
  'ob_accounts',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => obUsers.id),
    agentId: text('agent_id')
      .notNull()
      .references(() => obAgents.id),
    bankHash: text('bank_hash')
      .notNull()
      .references(() => obBanks.bankHash),
    consentId: text('consent_id')
      .notNull()
      .references(() => obConsents.id),
    iban: text('iban').notNull(),
    /** The bank's XS2A resourceId of the account. */
    resourceId: text('resource_id').notNull(),
    currency: text('currency').notNull(),
    name: text('name'),
    product: text('product'),
    cashAccountType: text('cash_account_type'),
    ownerName: text('owner_name'),
    bic: text('bic'),
    /** Last successful read from the bank (balances and transactions). */
    refreshedAt: timestamp('refreshed_at', { withTimezone: true }),
    /** Last refresh attempt and, when it failed, why (access_exceeded, bank_unavailable, consent_expired, ...). */
    refreshAttemptedAt: timestamp('refresh_attempted_at', { withTimezone: true }),
    refreshError: text('refresh_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** DELETE iban: hidden from the user; its balances and transactions are removed. */
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('ob_accounts_user_bank_iban_idx').on(table.userId, table.bankHash, table.iban),
    index('ob_accounts_consent_idx').on(table.consentId),
    index('ob_accounts_agent_iban_idx').on(table.agentId, table.iban),
  ],
);

/** The balances of an account as last read from the bank (replaced on every refresh). */
export const obBalances = pgTable(
  'ob_balances',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => obAccounts.id),
    balanceType: text('balance_type').notNull(),
    /** Decimal as the bank wrote it, e.g. "-12.50". */
    amount: text('amount').notNull(),
    currency: text('currency').notNull(),
    referenceDate: text('reference_date'),
    lastChangeDateTime: text('last_change_date_time'),
    fetchedAt: timestamp('fetched_at', { withTimezone: true }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.accountId, table.balanceType] })],
);

/** The transactions of an account as last read from the bank (replaced on every refresh). */
export const obTransactions = pgTable(
  'ob_transactions',
  {
    accountId: text('account_id')
      .notNull()
      .references(() => obAccounts.id),
    /** The bank's transactionId. */
    transactionId: text('transaction_id').notNull(),
    bookingStatus: text('booking_status', { enum: ['booked', 'pending'] }).notNull(),
    /** bookingDate for booked, valueDate for pending transactions (YYYY-MM-DD): what dateFrom/dateTo filter. */
    date: text('date').notNull(),
    bookingDate: text('booking_date'),
    valueDate: text('value_date'),
    amount: text('amount').notNull(),
    currency: text('currency').notNull(),
    creditorName: text('creditor_name'),
    creditorIban: text('creditor_iban'),
    debtorName: text('debtor_name'),
    debtorIban: text('debtor_iban'),
    remittanceInformation: text('remittance_information'),
    entryReference: text('entry_reference'),
    bankTransactionCode: text('bank_transaction_code'),
  },
  (table) => [
    primaryKey({ columns: [table.accountId, table.transactionId] }),
    index('ob_transactions_account_date_idx').on(table.accountId, table.date),
  ],
);

/** Accounts enumerated by a one-shot account-list consent (GET /api/8/account-list). */
export const obListedAccounts = pgTable(
  'ob_listed_accounts',
  {
    consentId: text('consent_id')
      .notNull()
      .references(() => obConsents.id),
    userId: text('user_id')
      .notNull()
      .references(() => obUsers.id),
    bankHash: text('bank_hash')
      .notNull()
      .references(() => obBanks.bankHash),
    iban: text('iban').notNull(),
    currency: text('currency').notNull(),
    ownerName: text('owner_name'),
    name: text('name'),
    listedAt: timestamp('listed_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.consentId, table.iban, table.currency] }),
    index('ob_listed_accounts_user_idx').on(table.userId, table.listedAt),
  ],
);

/** Which consents granted which accounts (GET consents/{ibanId}): every consent that ever covered it. */
export const obConsentAccounts = pgTable(
  'ob_consent_accounts',
  {
    consentId: text('consent_id')
      .notNull()
      .references(() => obConsents.id),
    accountId: text('account_id')
      .notNull()
      .references(() => obAccounts.id),
    grantedAt: timestamp('granted_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ columns: [table.consentId, table.accountId] }),
    index('ob_consent_accounts_account_idx').on(table.accountId),
  ],
);
