import { and, asc, count, eq, type SQL, sql } from 'drizzle-orm';
import {
  type NationalIdField,
  nationalIdDigest,
  openNationalId,
  sealNationalId,
} from '../../credentials/lending/personal-data.ts';
import { newRecordId } from '../../credentials/lending/tenants.ts';
import { type IssuedUserToken, issueUserToken, passwordHashOf } from '../../credentials/lending/users.ts';
import type { Database } from '../../db/client.ts';
import {
  type LendingCustomerOrigin,
  type LendingDisclaimerSettings,
  lendingCustomers,
  lendingTenants,
  lendingUsers,
} from '../../db/schema/lending.ts';
import {
  type CustomerDetails,
  missingCustomerDetails,
  normalizeLogin,
  normalizeNationalId,
  normalizePhone,
} from '../../domain/lending/customers.ts';
import type { LendingTenant } from '../../domain/lending/tenancy.ts';
import type { Config } from '../../platform/config.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { customerDetailsCompleted } from './loan/workflow.ts';

/**
 * The customers' read and write model (lending_customers): details as JSON, the national ids sealed
 * (credentials/lending/personal-data.ts) and searched by keyed digests. Every function is scoped by
 * tenant: another tenant's customer is not found.
 */

type KeyConfig = Pick<Config, 'LENDING_DATA_KEY' | 'PLATFORM_MODE'>;
type CustomerRow = typeof lendingCustomers.$inferSelect;
type Executor = Pick<Database, 'select' | 'insert' | 'update'>;
type Deps = Pick<UseCaseDeps, 'db' | 'config'>;

/** The customer a use case acts on. */
export interface CustomerRef {
  tenantId: string;
  customerId: string;
}

/** The columns that store `details` of customer `customerId`: plain JSON, sealed ids, their digests. */
function storedDetails(config: KeyConfig, tenantId: string, customerId: string, details: CustomerDetails) {
  const { ssn, driverLicenseId, ...plain } = details;
  const seal = (field: NationalIdField, value: string | undefined) =>
    value === undefined ? null : sealNationalId(config, customerId, field, value);
  const digest = (field: NationalIdField, value: string | undefined) =>
    value === undefined ? null : nationalIdDigest(config, tenantId, field, normalizeNationalId(value));
  return {
    details: plain as Record<string, unknown>,
    ssnSealed: seal('ssn', ssn),
    ssnDigest: digest('ssn', ssn),
    driverLicenseSealed: seal('driverLicenseId', driverLicenseId),
    driverLicenseDigest: digest('driverLicenseId', driverLicenseId),
  };
}

/**
 * The details of a row; the national ids are opened when `config` is given, else left out (their
 * presence still counts towards `detailsComplete`).
 */
function detailsOf(
  row: CustomerRow,
  config: KeyConfig | undefined,
): { details: CustomerDetails; complete: boolean; missing: string[] } {
  const plain = row.details as CustomerDetails;
  const sealed = { ssn: row.ssnSealed, driverLicenseId: row.driverLicenseSealed };
  const opened: CustomerDetails = { ...plain };
  const presence: CustomerDetails = { ...plain };
  for (const field of ['ssn', 'driverLicenseId'] as const) {
    const stored = sealed[field];
    if (!stored) continue;
    presence[field] = 'present';
    if (config) opened[field] = openNationalId(config, row.id, field, stored);
  }
  const missing = missingCustomerDetails(presence);
  return { details: opened, complete: missing.length === 0, missing };
}

/**
 * One customer of a tenant (for the loan use cases):
 * undefined for an unknown customer or another tenant's. Pass `config` to read the national ids.
 */
export async function readCustomer(
  { db, config }: Pick<UseCaseDeps, 'db'> & { config?: KeyConfig | undefined },
  { tenantId, customerId }: CustomerRef,
): Promise<{ id: string; details: CustomerDetails; detailsComplete: boolean } | undefined> {
  const [row] = await db
    .select()
    .from(lendingCustomers)
    .where(and(eq(lendingCustomers.id, customerId), eq(lendingCustomers.tenantId, tenantId)))
    .limit(1);
  if (!row) return undefined;
  const { details, complete } = detailsOf(row, config);
  return { id: row.id, details, detailsComplete: complete };
}

// ─── What the API answers ───────────────────────────────────────────────────────────────────────

/** A customer as the API answers it (api/lending/customer-schemas.ts). */
export interface CustomerRecord {
  customerId: string;
  login: string;
  origin: LendingCustomerOrigin;
  details: CustomerDetails;
  /** Whether every required detail is given (a loan application can leave Pre-Origination). */
  detailsComplete: boolean;
  missingDetails: string[];
  disclaimerConfirmedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

async function recordOf(db: Executor, config: KeyConfig, row: CustomerRow): Promise<CustomerRecord> {
  const [user] = await db
    .select({ login: lendingUsers.login })
    .from(lendingUsers)
    .where(eq(lendingUsers.customerId, row.id))
    .limit(1);
  const { details, complete, missing } = detailsOf(row, config);
  return {
    customerId: row.id,
    login: user?.login ?? '',
    origin: row.origin,
    details,
    detailsComplete: complete,
    missingDetails: missing,
    disclaimerConfirmedAt: row.disclaimerConfirmedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function customerRow(
  db: Executor,
  tenantId: string,
  customerId: string,
): Promise<CustomerRow | undefined> {
  const [row] = await db
    .select()
    .from(lendingCustomers)
    .where(and(eq(lendingCustomers.id, customerId), eq(lendingCustomers.tenantId, tenantId)))
    .limit(1);
  return row;
}

/** The customer's record for the API; 404 `not_found` for an unknown customer or another tenant's. */
export async function customerRecord(
  { db, config }: Deps,
  { tenantId, customerId }: CustomerRef,
): Promise<CustomerRecord> {
  const row = await customerRow(db, tenantId, customerId);
  if (!row) throw Refusal.notFound('Customer');
  return recordOf(db, config, row);
}

/** Creates a customer with its user (login, optional password hash) in one transaction. */
export async function createCustomer(
  { db, config }: Deps,
  input: {
    tenantId: string;
    origin: LendingCustomerOrigin;
    login: string;
    passwordHash: string | null;
    details: CustomerDetails;
  },
): Promise<{ customerId: string; userId: string; record: CustomerRecord }> {
  const customerId = newRecordId('cus');
  const userId = newRecordId('usr');
  return db.transaction(async (tx) => {
    const [taken] = await tx
      .select({ id: lendingUsers.id })
      .from(lendingUsers)
      .where(and(eq(lendingUsers.tenantId, input.tenantId), eq(lendingUsers.login, input.login)))
      .limit(1);
    if (taken) throw Refusal.conflict('login_taken', 'A user with this login exists');
    const [row] = await tx
      .insert(lendingCustomers)
      .values({
        id: customerId,
        tenantId: input.tenantId,
        origin: input.origin,
        ...storedDetails(config, input.tenantId, customerId, input.details),
      })
      .returning();
    const [user] = await tx
      .insert(lendingUsers)
      .values({
        id: userId,
        tenantId: input.tenantId,
        login: input.login,
        passwordHash: input.passwordHash,
        role: 'customer',
        customerId,
      })
      .onConflictDoNothing()
      .returning({ id: lendingUsers.id });
    // Two registrations of one login at once: the unique index lets one through.
    if (!user) throw Refusal.conflict('login_taken', 'A user with this login exists');
    return { customerId, userId, record: await recordOf(tx, config, row!) };
  });
}

/**
 * Replaces a customer's details (PUT semantics; Customer/Details, Management/Customers/{customerId});
 * 404 for an unknown customer or another tenant's. When the details are complete, the customer's loan
 * applications waiting in Pre-Origination move on: on every update that leaves them complete, so a
 * move missed once is made the next time.
 */
export async function replaceCustomerDetails(
  deps: Deps & Pick<UseCaseDeps, 'temporal'>,
  { tenantId, customerId, details }: CustomerRef & { details: CustomerDetails },
): Promise<CustomerRecord> {
  const { db, config } = deps;
  const [row] = await db
    .update(lendingCustomers)
    .set({ ...storedDetails(config, tenantId, customerId, details), updatedAt: new Date() })
    .where(and(eq(lendingCustomers.id, customerId), eq(lendingCustomers.tenantId, tenantId)))
    .returning();
  if (!row) throw Refusal.notFound('Customer');
  const record = await recordOf(db, config, row);
  if (record.detailsComplete) await customerDetailsCompleted(deps.temporal, tenantId, customerId);
  return record;
}

/** Records the customer's confirmation of the disclaimer `version` (the first one is kept). */
async function confirmDisclaimer(
  db: Database,
  tenantId: string,
  customerId: string,
  version: string,
): Promise<CustomerRow> {
  const row = await customerRow(db, tenantId, customerId);
  if (!row) throw Refusal.notFound('Customer');
  if (row.origin !== 'registration') {
    throw Refusal.conflict(
      'account_not_self_registered',
      'Only a customer who registered through Customer/Register confirms the disclaimer; this account was created by management or the back office',
    );
  }
  if (row.disclaimerConfirmedAt && row.disclaimerVersion === version) return row;
  const [updated] = await db
    .update(lendingCustomers)
    .set({ disclaimerConfirmedAt: new Date(), disclaimerVersion: version })
    .where(and(eq(lendingCustomers.id, customerId), eq(lendingCustomers.tenantId, tenantId)))
    .returning();
  return updated!;
}

/** The tenant's disclaimer settings (Customer/Disclaimer). */
export async function disclaimerOf(
  { db }: Pick<UseCaseDeps, 'db'>,
  { tenantId }: { tenantId: string },
): Promise<LendingDisclaimerSettings> {
  const [row] = await db
    .select({ disclaimer: lendingTenants.disclaimer })
    .from(lendingTenants)
    .where(eq(lendingTenants.id, tenantId));
  return row!.disclaimer;
}

/** Customer/ConfirmAccount: the customer confirms the tenant's current disclaimer. */
export async function confirmAccount(
  { db }: Pick<UseCaseDeps, 'db'>,
  { tenantId, customerId }: CustomerRef,
): Promise<{ confirmedAt: string; disclaimerVersion: string }> {
  const { version } = await disclaimerOf({ db }, { tenantId });
  const row = await confirmDisclaimer(db, tenantId, customerId, version);
  return {
    confirmedAt: row.disclaimerConfirmedAt!.toISOString(),
    disclaimerVersion: row.disclaimerVersion ?? version,
  };
}

/**
 * Customer/States: the tenant's states of operation. A tenant without state management has no such
 * list: 404 `state_management_disabled` (decision 0037).
 */
export async function statesOf(
  { db }: Pick<UseCaseDeps, 'db'>,
  { tenant }: { tenant: Pick<LendingTenant, 'id' | 'features'> },
): Promise<{ states: string[] }> {
  if (!tenant.features.stateManagement) {
    throw new Refusal(404, 'state_management_disabled', 'State management is not enabled for this tenant');
  }
  const [row] = await db
    .select({ states: lendingTenants.states })
    .from(lendingTenants)
    .where(eq(lendingTenants.id, tenant.id));
  return { states: row?.states ?? [] };
}

/**
 * Customer/Register: a customer with its user and password, signed in at once (a user token). The
 * password must not be the login.
 */
export async function registerCustomer(
  deps: Deps,
  { tenantId, ...input }: { tenantId: string; login: string; password: string; details: CustomerDetails },
): Promise<{ issued: IssuedUserToken; userId: string; customerId: string }> {
  const { db, config } = deps;
  if (normalizeLogin(input.password) === normalizeLogin(input.login))
    throw Refusal.field('password', 'must not be the login');
  const { userId, customerId } = await createCustomer(deps, {
    tenantId,
    origin: 'registration',
    login: normalizeLogin(input.login),
    passwordHash: await passwordHashOf(input.password),
    details: input.details,
  });
  const issued = await issueUserToken(db, { tenantId, userId }, config.LENDING_USER_TOKEN_TTL);
  return { issued, userId, customerId };
}

// ─── Search ─────────────────────────────────────────────────────────────────────────────────────

export interface CustomerSearchFilters {
  firstName?: string | undefined;
  lastName?: string | undefined;
  birthDate?: string | undefined;
  email?: string | undefined;
  ssn?: string | undefined;
  driverLicenseId?: string | undefined;
  phone?: string | undefined;
}

export interface CustomerSummary {
  customerId: string;
  login: string;
  firstName: string | null;
  lastName: string | null;
  birthDate: string | null;
  email: string | null;
  phone: string | null;
  detailsComplete: boolean;
  createdAt: string;
}

/**
 * Management/Customers/Search: a customer matches when every non-empty filter matches — names and
 * e-mail case-insensitively and whole, birth date exactly, phone by its `+` and digits, ssn and
 * driver's licence by their normalised keyed digest. Oldest first; `total` counts every match.
 */
export async function searchCustomers(
  { db, config }: Deps,
  {
    tenantId,
    filters,
    page,
  }: { tenantId: string; filters: CustomerSearchFilters; page: { pageNumber: number; pageSize: number } },
): Promise<{ items: CustomerSummary[]; total: number; pageNumber: number; pageSize: number }> {
  // Field names come from the fixed list below, never from the request.
  const text = (field: 'firstName' | 'lastName' | 'email') =>
    sql`lower(${lendingCustomers.details}->>${sql.raw(`'${field}'`)})`;
  const present = (value: string | undefined): value is string => value !== undefined && value.trim() !== '';
  const conditions: SQL[] = [eq(lendingCustomers.tenantId, tenantId)];
  for (const field of ['firstName', 'lastName', 'email'] as const) {
    const value = filters[field];
    if (present(value)) conditions.push(sql`${text(field)} = ${value.trim().toLowerCase()}`);
  }
  if (present(filters.birthDate)) {
    conditions.push(sql`${lendingCustomers.details}->>'birthDate' = ${filters.birthDate.trim()}`);
  }
  if (present(filters.phone)) {
    conditions.push(sql`${lendingCustomers.details}->>'phone' = ${normalizePhone(filters.phone)}`);
  }
  if (present(filters.ssn)) {
    conditions.push(
      eq(
        lendingCustomers.ssnDigest,
        nationalIdDigest(config, tenantId, 'ssn', normalizeNationalId(filters.ssn)),
      ),
    );
  }
  if (present(filters.driverLicenseId)) {
    const digest = nationalIdDigest(
      config,
      tenantId,
      'driverLicenseId',
      normalizeNationalId(filters.driverLicenseId),
    );
    conditions.push(eq(lendingCustomers.driverLicenseDigest, digest));
  }
  const where = and(...conditions);
  const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(lendingCustomers).where(where);
  const rows = await db
    .select({ customer: lendingCustomers, login: lendingUsers.login })
    .from(lendingCustomers)
    .leftJoin(lendingUsers, eq(lendingUsers.customerId, lendingCustomers.id))
    .where(where)
    .orderBy(asc(lendingCustomers.createdAt), asc(lendingCustomers.id))
    .limit(page.pageSize)
    .offset((page.pageNumber - 1) * page.pageSize);
  const items = rows.map(({ customer, login }) => {
    const { details, complete } = detailsOf(customer, undefined);
    return {
      customerId: customer.id,
      login: login ?? '',
      firstName: details.firstName ?? null,
      lastName: details.lastName ?? null,
      birthDate: details.birthDate ?? null,
      email: details.email ?? null,
      phone: details.phone ?? null,
      detailsComplete: complete,
      createdAt: customer.createdAt.toISOString(),
    };
  });
  return { items, total, pageNumber: page.pageNumber, pageSize: page.pageSize };
}
