import { randomBytes } from 'node:crypto';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { lendingApiKeys, lendingSiteDomains, lendingTenants } from '../../db/schema/lending.ts';
import type { LendingPermission, LendingTenant } from '../../domain/lending/tenancy.ts';
import { credentialCache, forgetCredentials } from '../shared/credential-cache.ts';
import { digestOf } from './users.ts';

/**
 * `lender_ApiKey`s (decision 0037): issued to a tenant by the platform operator (`npm run admin --
 * lending:api-key`, POST /admin/lending/tenants/{tenantId}/api-keys) with one or more permission
 * levels and an expiry; `lak_` + 32 random bytes (base64url), shown once; only the SHA-256 digest is
 * stored, as every credential of the platform is.
 */

export const LENDING_PERMISSIONS = [
  'front_office',
  'management',
  'payment_options',
] as const satisfies readonly LendingPermission[];

/** A key lives a year unless the operator says otherwise (the spec advises "sensible expiry"). */
export const DEFAULT_API_KEY_LIFETIME_DAYS = 365;

const KEY_PATTERN = /^lak_[A-Za-z0-9_-]{43}$/;

export interface IssuedApiKey {
  keyId: string;
  tenantId: string;
  permissions: LendingPermission[];
  label: string;
  expiresAt: string;
  /** Shown once; only its digest is kept. */
  apiKey: string;
}

export class UnknownTenant extends Error {
  constructor(tenantId: string) {
    super(`no lending tenant ${tenantId}`);
    this.name = 'UnknownTenant';
  }
}

/** The expiry asked for is not in the future: a key issued already expired would be useless. */
export class ExpiryInThePast extends Error {
  constructor(expiresAt: Date) {
    super(`expiresAt ${expiresAt.toISOString()} is not in the future`);
    this.name = 'ExpiryInThePast';
  }
}

export async function issueApiKey(
  db: Database,
  input: { tenantId: string; permissions: readonly LendingPermission[]; label?: string; expiresAt?: Date },
): Promise<IssuedApiKey> {
  const [tenant] = await db
    .select({ id: lendingTenants.id })
    .from(lendingTenants)
    .where(eq(lendingTenants.id, input.tenantId));
  if (!tenant) throw new UnknownTenant(input.tenantId);
  if (input.expiresAt && !(input.expiresAt.getTime() > Date.now()))
    throw new ExpiryInThePast(input.expiresAt);
  if (input.permissions.length === 0) throw new Error('a key needs at least one permission level');
  const permissions = LENDING_PERMISSIONS.filter((level) => input.permissions.includes(level));
  const expiresAt =
    input.expiresAt ?? new Date(Date.now() + DEFAULT_API_KEY_LIFETIME_DAYS * 24 * 60 * 60 * 1000);
  const apiKey = `lak_${randomBytes(32).toString('base64url')}`;
  const keyId = `key_${randomBytes(12).toString('hex')}`;
  const label = input.label ?? 'api client';
  await db
    .insert(lendingApiKeys)
    .values({ id: keyId, tenantId: input.tenantId, digest: digestOf(apiKey), permissions, label, expiresAt });
  return { keyId, tenantId: input.tenantId, permissions, label, expiresAt: expiresAt.toISOString(), apiKey };
}

/** Revokes a key (of `tenantId` when given); false when there is no such live key. */
export async function revokeApiKey(db: Database, keyId: string, tenantId?: string): Promise<boolean> {
  const rows = await db
    .update(lendingApiKeys)
    .set({ revokedAt: new Date() })
    .where(
      and(
        eq(lendingApiKeys.id, keyId),
        isNull(lendingApiKeys.revokedAt),
        ...(tenantId ? [eq(lendingApiKeys.tenantId, tenantId)] : []),
      ),
    )
    .returning({ id: lendingApiKeys.id });
  forgetCredentials(db, lendingApiKeys);
  return rows.length > 0;
}

export interface ResolvedApiKey {
  keyId: string;
  tenant: LendingTenant;
  permissions: readonly LendingPermission[];
}

const apiKeys = credentialCache<ResolvedApiKey & { expiresAt: Date }>({
  name: 'lending-api-keys',
  tables: [lendingApiKeys, lendingTenants],
  expiresAt: (key) => key.expiresAt,
});

/** The live key (not expired, not revoked) matching a presented one, with its tenant. */
export async function resolveApiKey(db: Database, presented: string): Promise<ResolvedApiKey | undefined> {
  if (!KEY_PATTERN.test(presented)) return undefined;
  const digest = digestOf(presented);
  const resolved = await apiKeys.lookup(db, digest, async () => {
    const [row] = await db
      .select({ key: lendingApiKeys, tenant: lendingTenants })
      .from(lendingApiKeys)
      .innerJoin(lendingTenants, eq(lendingTenants.id, lendingApiKeys.tenantId))
      .where(
        and(
          eq(lendingApiKeys.digest, digest),
          isNull(lendingApiKeys.revokedAt),
          gt(lendingApiKeys.expiresAt, new Date()),
        ),
      )
      .limit(1);
    if (!row) return undefined;
    return {
      keyId: row.key.id,
      permissions: row.key.permissions,
      expiresAt: row.key.expiresAt,
      tenant: {
        id: row.tenant.id,
        name: row.tenant.name,
        environment: row.tenant.environment,
        features: row.tenant.features,
      },
    };
  });
  if (!resolved) return undefined;
  const { expiresAt: _expiresAt, ...key } = resolved;
  return key;
}

/** The host name of a Host header: lower case, without port (IPv6 literals keep their brackets). */
export function hostNameOf(host: string): string {
  const lower = host.trim().toLowerCase();
  if (lower.startsWith('[')) return lower.slice(0, lower.indexOf(']') + 1);
  return lower.replace(/:\d+$/, '').replace(/\.$/, '');
}

// Most hosts name no tenant: that answer is remembered too (a new site domain is a change of the table).
const siteDomains = credentialCache<string | null>({
  name: 'lending-site-domains',
  tables: [lendingSiteDomains],
  cacheAbsence: true,
});

/** The tenant whose site domain a Host header names, if any. */
export async function tenantOfSiteDomain(db: Database, host: string): Promise<string | undefined> {
  const domain = hostNameOf(host);
  const tenantId = await siteDomains.lookup(db, domain, async () => {
    const [row] = await db
      .select({ tenantId: lendingSiteDomains.tenantId })
      .from(lendingSiteDomains)
      .where(eq(lendingSiteDomains.domain, domain))
      .limit(1);
    return row?.tenantId ?? null;
  });
  return tenantId ?? undefined;
}
