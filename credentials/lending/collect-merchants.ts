import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { lendingTenants } from '../../db/schema/lending.ts';
import { lendingCollectMerchants } from '../../db/schema/lending-collect.ts';
import type { Config } from '../../platform/config.ts';
import { openSecret, sealSecret, secretBoxKey } from '../shared/secret-box.ts';

/**
 * A lending tenant's merchant credentials at the payment-collection gateway (decision 0041), configured
 * by the platform operator (`npm run admin -- lending:collect-merchant`, PUT
 * /admin/lending/tenants/{tenantId}/collect-merchant). The secret signs the packets lending sends and
 * checks the notifications it receives, so it is encrypted, not hashed: AES-256-GCM
 * (credentials/shared/secret-box.ts) under LENDING_DATA_KEY, bound to the tenant, like customers'
 * national ids (personal-data.ts). No answer ever returns it.
 */
const DEVELOPMENT_KEY_SEED = 'integration-platform lending development data key';

type KeyConfig = Pick<Config, 'LENDING_DATA_KEY' | 'PLATFORM_MODE'>;

const boxKeyOf = (config: KeyConfig) =>
  secretBoxKey(config.LENDING_DATA_KEY, config.PLATFORM_MODE, 'LENDING_DATA_KEY', DEVELOPMENT_KEY_SEED);

const boundTo = (tenantId: string) => `lending_collect_merchants.secret:${tenantId}`;

/** ePay's merchant id: `D` and 9 digits. */
export const COLLECT_MIN_PATTERN = /^D\d{9}$/;

export interface CollectMerchant {
  tenantId: string;
  min: string;
  secret: string;
}

/** The MIN is another tenant's merchant already. */
export class CollectMerchantTaken extends Error {
  constructor(min: string) {
    super(`the merchant ${min} is configured for another lending tenant`);
    this.name = 'CollectMerchantTaken';
  }
}

/**
 * Sets (or replaces) the tenant's merchant credentials; undefined when there is no such tenant. Answers
 * what is stored, without the secret.
 */
export async function saveCollectMerchant(
  db: Database,
  config: KeyConfig,
  tenantId: string,
  merchant: { min: string; secret: string },
): Promise<{ tenantId: string; min: string; updatedAt: Date } | undefined> {
  const [tenant] = await db
    .select({ id: lendingTenants.id })
    .from(lendingTenants)
    .where(eq(lendingTenants.id, tenantId));
  if (!tenant) return undefined;
  const [taken] = await db
    .select({ tenantId: lendingCollectMerchants.tenantId })
    .from(lendingCollectMerchants)
    .where(eq(lendingCollectMerchants.min, merchant.min));
  if (taken && taken.tenantId !== tenantId) throw new CollectMerchantTaken(merchant.min);
  const now = new Date();
  const row = {
    min: merchant.min,
    secretSealed: sealSecret(boxKeyOf(config), boundTo(tenantId), merchant.secret),
    updatedAt: now,
  };
  try {
    await db
      .insert(lendingCollectMerchants)
      .values({ tenantId, ...row, createdAt: now })
      .onConflictDoUpdate({ target: lendingCollectMerchants.tenantId, set: row });
  } catch (error) {
    // Two operators configuring one MIN for two tenants at once: the unique index decides.
    const failure = error as { code?: string; cause?: { code?: string } };
    if ((failure.code ?? failure.cause?.code) === '23505') throw new CollectMerchantTaken(merchant.min);
    throw error;
  }
  return { tenantId, min: merchant.min, updatedAt: now };
}

/** The tenant's merchant with its secret (for signing and verifying), or undefined when none is configured. */
export async function loadCollectMerchant(
  db: Database,
  config: KeyConfig,
  tenantId: string,
): Promise<CollectMerchant | undefined> {
  const [row] = await db
    .select()
    .from(lendingCollectMerchants)
    .where(eq(lendingCollectMerchants.tenantId, tenantId));
  if (!row) return undefined;
  return {
    tenantId,
    min: row.min,
    secret: openSecret(boxKeyOf(config), boundTo(tenantId), row.secretSealed, 'collect merchant secret'),
  };
}

/** What the operator may read back: the MIN and when it was set (never the secret). */
export async function describeCollectMerchant(
  db: Database,
  tenantId: string,
): Promise<{ tenantId: string; min: string; updatedAt: Date } | undefined> {
  const [row] = await db
    .select({
      tenantId: lendingCollectMerchants.tenantId,
      min: lendingCollectMerchants.min,
      updatedAt: lendingCollectMerchants.updatedAt,
    })
    .from(lendingCollectMerchants)
    .where(eq(lendingCollectMerchants.tenantId, tenantId));
  return row;
}
