import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * The lending platform's tenants, API keys, users and customers (decision 0037). Every row below a
 * tenant carries its `tenant_id`, and every read is scoped by it: a key or token never reaches another
 * tenant's rows.
 */

export type LendingEnvironment = 'production' | 'staging';
export type LendingPermissionLevel = 'front_office' | 'management' | 'payment_options';

/** Tenant features the spec makes behaviour depend on. */
export interface LendingTenantFeatures {
  stateManagement: boolean;
  multipleOffers: boolean;
}

/** What Customer/Disclaimer answers, and what Customer/ConfirmAccount confirms. */
export interface LendingDisclaimerSettings {
  /** Whether a self-registered customer must confirm the disclaimer. */
  required: boolean;
  /** Changes when the text changes; a confirmation records the version it confirmed. */
  version: string;
  text: string;
}

/**
 * A lender hosting the platform. Each production tenant has a staging tenant of its own (its own keys,
 * users and data): `production_tenant_id` names the production twin of a staging tenant.
 */
export const lendingTenants = pgTable('lending_tenants', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  environment: text('environment', { enum: ['production', 'staging'] })
    .$type<LendingEnvironment>()
    .notNull(),
  productionTenantId: text('production_tenant_id'),
  features: jsonb('features').$type<LendingTenantFeatures>().notNull(),
  disclaimer: jsonb('disclaimer').$type<LendingDisclaimerSettings>().notNull(),
  /** States of operation (Customer/States) when state management is on; two-letter codes. */
  states: jsonb('states').$type<string[]>().notNull().default([]),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/** A tenant's site domains: a request whose Host is one of them must use that tenant's key. */
export const lendingSiteDomains = pgTable('lending_site_domains', {
  /** Lower-case host name without port; one tenant per domain. */
  domain: text('domain').primaryKey(),
  tenantId: text('tenant_id')
    .notNull()
    .references(() => lendingTenants.id),
});

/** `lender_ApiKey`s: only the SHA-256 digest of a key is stored (credentials/lending/api-keys.ts). */
export const lendingApiKeys = pgTable(
  'lending_api_keys',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    digest: text('digest').notNull(),
    permissions: jsonb('permissions').$type<LendingPermissionLevel[]>().notNull(),
    label: text('label').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('lending_api_keys_digest_idx').on(table.digest),
    index('lending_api_keys_tenant_idx').on(table.tenantId),
  ],
);

/**
 * Where a customer came from: `registration` (Customer/Register, the tenant's front site),
 * `management` (Management/Customers/Create) or `back_office` (the operator). Only `registration`
 * customers confirm the disclaimer with Customer/ConfirmAccount.
 */
export type LendingCustomerOrigin = 'registration' | 'management' | 'back_office';

/**
 * A customer (borrower): personal details as JSON without the national ids, which are kept encrypted
 * (`*_sealed`, AES-256-GCM bound to the row) and searched by keyed digests (`*_digest`).
 */
export const lendingCustomers = pgTable(
  'lending_customers',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    origin: text('origin', { enum: ['registration', 'management', 'back_office'] })
      .$type<LendingCustomerOrigin>()
      .notNull(),
    /** CustomerDetails (domain/lending/customers.ts) without ssn and driverLicenseId. */
    details: jsonb('details').$type<Record<string, unknown>>().notNull(),
    ssnSealed: text('ssn_sealed'),
    ssnDigest: text('ssn_digest'),
    driverLicenseSealed: text('driver_license_sealed'),
    driverLicenseDigest: text('driver_license_digest'),
    disclaimerConfirmedAt: timestamp('disclaimer_confirmed_at', { withTimezone: true }),
    disclaimerVersion: text('disclaimer_version'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('lending_customers_tenant_idx').on(table.tenantId, table.createdAt),
    index('lending_customers_ssn_idx').on(table.tenantId, table.ssnDigest),
    index('lending_customers_driver_license_idx').on(table.tenantId, table.driverLicenseDigest),
    index('lending_customers_last_name_idx').on(table.tenantId, sql`lower(${table.details}->>'lastName')`),
    index('lending_customers_email_idx').on(table.tenantId, sql`lower(${table.details}->>'email')`),
  ],
);

/**
 * A person who signs in (`lender_UserAuthToken`): a customer now, an investor in a later issue. The
 * login is unique per tenant (stored lower-case); the password is a scrypt hash, absent for a customer
 * created by management until they set one through a password reset.
 */
export const lendingUsers = pgTable(
  'lending_users',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    login: text('login').notNull(),
    passwordHash: text('password_hash'),
    role: text('role', { enum: ['customer', 'investor'] }).notNull(),
    customerId: text('customer_id').references(() => lendingCustomers.id),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    passwordChangedAt: timestamp('password_changed_at', { withTimezone: true }),
  },
  (table) => [
    uniqueIndex('lending_users_login_idx').on(table.tenantId, table.login),
    uniqueIndex('lending_users_customer_idx').on(table.customerId),
  ],
);

/** `lender_UserAuthToken`s: SHA-256 digests, each bound to one user of one tenant, with an expiry. */
export const lendingUserTokens = pgTable(
  'lending_user_tokens',
  {
    digest: text('digest').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    userId: text('user_id')
      .notNull()
      .references(() => lendingUsers.id),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('lending_user_tokens_user_idx').on(table.userId)],
);

/** One-time password reset codes (User/RequestPasswordReset → User/ResetPassword), as digests. */
export const lendingPasswordResets = pgTable(
  'lending_password_resets',
  {
    digest: text('digest').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    userId: text('user_id')
      .notNull()
      .references(() => lendingUsers.id),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('lending_password_resets_user_idx').on(table.userId)],
);

/**
 * E-mail to users: every message is recorded here as sent (the outbox tests read), and also handed to
 * the SMTP server when LENDING_SMTP_URL is set (`sent_at` / `error` say how that went).
 */
/**
 * User/Login's failures per login of a tenant (domain/lending/login-throttle.ts). `key` is a keyed
 * digest of the tenant and the normalised login (credentials/lending/login-throttle.ts): unknown logins
 * are counted too, and the table names no login.
 */
export const lendingLoginThrottles = pgTable('lending_login_throttles', {
  key: text('key').primaryKey(),
  tenantId: text('tenant_id')
    .notNull()
    .references(() => lendingTenants.id),
  failures: integer('failures').notNull().default(0),
  blockedUntil: timestamp('blocked_until', { withTimezone: true }),
  lockedAt: timestamp('locked_at', { withTimezone: true }),
  lastFailureAt: timestamp('last_failure_at', { withTimezone: true }),
});

export const lendingEmailOutbox = pgTable(
  'lending_email_outbox',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    userId: text('user_id').references(() => lendingUsers.id),
    kind: text('kind').notNull(),
    recipient: text('recipient').notNull(),
    subject: text('subject').notNull(),
    /** Sealed (credentials/lending/sealed-mail.ts): it carries a one-time code; null once sent. */
    body: text('body'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    error: text('error'),
  },
  (table) => [index('lending_email_outbox_recipient_idx').on(table.tenantId, table.recipient)],
);

/** A customer's bank accounts (Management/Customers/{customerId}/BankAccounts); `id` is the profileId. */
export const lendingBankAccounts = pgTable(
  'lending_bank_accounts',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    customerId: text('customer_id')
      .notNull()
      .references(() => lendingCustomers.id),
    iban: text('iban').notNull(),
    bic: text('bic'),
    holderName: text('holder_name'),
    isDefault: boolean('is_default').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (table) => [index('lending_bank_accounts_customer_idx').on(table.tenantId, table.customerId)],
);

/** A tenant's branch offices (Management/BranchOffices). */
export const lendingBranchOffices = pgTable(
  'lending_branch_offices',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    name: text('name').notNull(),
    address: text('address'),
    phone: text('phone'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('lending_branch_offices_tenant_idx').on(table.tenantId)],
);

/**
 * Reasons a loan is cancelled for: `front_office` ones are listed by Dictionary/CancellationReasons and
 * may be given by a customer; the others only by the back office.
 */
export const lendingCancellationReasons = pgTable(
  'lending_cancellation_reasons',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    name: text('name').notNull(),
    frontOffice: boolean('front_office').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('lending_cancellation_reasons_tenant_idx').on(table.tenantId)],
);
