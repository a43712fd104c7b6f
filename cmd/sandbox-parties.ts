import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { and, eq, isNull } from 'drizzle-orm';
import { lending } from '../application/lending/index.ts';
import { createMerchant, loadMerchant } from '../credentials/collect/merchants.ts';
import { issueApiKey } from '../credentials/lending/api-keys.ts';
import { createLendingTenant } from '../credentials/lending/tenants.ts';
import type { Database } from '../db/client.ts';
import { collectMerchants } from '../db/schema/collect.ts';
import { lendingApiKeys, lendingTenants } from '../db/schema/lending.ts';
import { type CreditProductInput, creditProductSchema } from '../domain/lending/credit-products.ts';
import type { Config } from '../platform/config.ts';
import { writePrivateFile } from '../platform/data-dir.ts';

/**
 * Sandbox mode: the parties an integrator would otherwise ask an operator for, provisioned at each
 * `npm start` so that `npm run demo` (and a newcomer) can walk every service with no setup:
 * - the operator token (ADMIN_TOKEN, generated when unset), for the operator's steps (sender-ID approval);
 * - a payment-collection merchant hosted by the sandbox merchant server (notifications verified there);
 * - a lending tenant with a credit product and an API key of each permission level;
 * - the sandbox's second SMSC (decision 0079), for the demo's carrier failover.
 * Idempotent: the merchant (fixed MIN) and the tenant (by name) are created once and reused; the lending
 * keys are issued afresh at each start and the previous start's revoked (only digests are kept, as for the
 * sandbox access token). Everything is written owner-only to DATA_DIR/sandbox-parties.json. Production
 * mode provisions nothing.
 */

export const SANDBOX_PARTIES_FILE = 'sandbox-parties.json';
export const SANDBOX_COLLECT_MIN = 'D100000001';
export const SANDBOX_LENDING_TENANT = 'Sandbox lender';
const SANDBOX_KEY_LABEL = 'sandbox (npm start)';

/** The sandbox lender's product (the tests' too): EUR 500-20000 over 3-36 months at 12 %, annuity, no fees. */
export const SANDBOX_CREDIT_PRODUCT: CreditProductInput = {
  name: 'Personal 12',
  currency: 'EUR',
  secured: false,
  amount: { min: '500.00', max: '20000.00' },
  term: { min: 3, max: 36 },
  annualInterestRate: '12',
  amortisation: 'equal_instalments',
};

export interface SandboxParties {
  apiUrl: string;
  temporalUiUrl?: string | undefined;
  /** Bearer token of the admin endpoints (the operator's steps). */
  adminToken: string;
  /** The sandbox HTTP providers (chat app, HLR, the handset at `/handset/{number}.json`). */
  sandboxProvidersUrl: string;
  collect: { min: string; secret: string; notifyUrl: string; sandboxMerchantUrl: string };
  lending: {
    tenantId: string;
    stagingTenantId: string;
    productName: string;
    keys: { frontOffice: string; management: string; paymentOptions: string };
  };
  /**
   * The second sandbox SMSC, as a carrier's settings name it, and how soon a carrier or route an operator
   * puts takes effect (SMS_ROUTES_REFRESH); absent when the sandbox runs no second SMSC (`npm run stack`).
   */
  secondSmsc?: { url: string; systemId: string; password: string; routesRefreshMs: number } | undefined;
}

/**
 * What the sandbox provides to the provisioning: the merchant server (in this process, or another one
 * reached over HTTP: `npm run stack`) and the providers' URL.
 */
export interface SandboxHosts {
  merchant: {
    url: string;
    register(input: { min: string; secret: string }): { notifyUrl: string } | Promise<{ notifyUrl: string }>;
  };
  providersUrl: string;
  /** The second SMSC's `smpp://` URL, when the sandbox runs one. */
  secondSmscUrl?: string | undefined;
}

/** Sandbox mode only: ADMIN_TOKEN generated when unset (before anything reads it). */
export function ensureSandboxAdminToken(config: Config): void {
  if (config.PLATFORM_MODE !== 'sandbox') return;
  config.ADMIN_TOKEN ??= `adm_${randomBytes(32).toString('base64url')}`;
}

async function provisionMerchant(db: Database, config: Config, sandbox: SandboxHosts) {
  const min = SANDBOX_COLLECT_MIN;
  const { notifyUrl } = await sandbox.merchant.register({ min, secret: 'pending' });
  let secret = (await loadMerchant(db, config, min))?.secret;
  if (secret) {
    // The sandbox merchant's port may differ from the last start's.
    await db.update(collectMerchants).set({ notifyUrl }).where(eq(collectMerchants.min, min));
  } else {
    secret = (await createMerchant(db, config, { name: 'Sandbox shop', min, notifyUrl })).secret;
  }
  await sandbox.merchant.register({ min, secret });
  return { min, secret, notifyUrl, sandboxMerchantUrl: sandbox.merchant.url };
}

async function provisionLendingTenant(db: Database) {
  const [found] = await db
    .select({ id: lendingTenants.id })
    .from(lendingTenants)
    .where(and(eq(lendingTenants.name, SANDBOX_LENDING_TENANT), eq(lendingTenants.environment, 'production')))
    .limit(1);
  let tenantId = found?.id;
  if (!tenantId) tenantId = (await createLendingTenant(db, { name: SANDBOX_LENDING_TENANT })).tenantId;
  const [staging] = await db
    .select({ id: lendingTenants.id })
    .from(lendingTenants)
    .where(eq(lendingTenants.productionTenantId, tenantId));
  await lending.saveCreditProduct(
    { db },
    { tenantId, product: creditProductSchema.parse(SANDBOX_CREDIT_PRODUCT) },
  );
  await db
    .update(lendingApiKeys)
    .set({ revokedAt: new Date() })
    .where(
      and(
        eq(lendingApiKeys.tenantId, tenantId),
        eq(lendingApiKeys.label, SANDBOX_KEY_LABEL),
        isNull(lendingApiKeys.revokedAt),
      ),
    );
  const key = async (permission: 'front_office' | 'management' | 'payment_options') =>
    (await issueApiKey(db, { tenantId, permissions: [permission], label: SANDBOX_KEY_LABEL })).apiKey;
  return {
    tenantId,
    stagingTenantId: staging?.id ?? '',
    productName: SANDBOX_CREDIT_PRODUCT.name,
    keys: {
      frontOffice: await key('front_office'),
      management: await key('management'),
      paymentOptions: await key('payment_options'),
    },
  };
}

/**
 * Provisions the sandbox parties and writes them to DATA_DIR/sandbox-parties.json (0600); undefined in
 * production mode (nothing is provisioned or written).
 */
export async function provisionSandboxParties(
  db: Database,
  config: Config,
  options: { dataDir: string; apiUrl: string; temporalUiUrl?: string | undefined; sandbox: SandboxHosts },
): Promise<SandboxParties | undefined> {
  if (config.PLATFORM_MODE !== 'sandbox' || !config.ADMIN_TOKEN) return undefined;
  const parties: SandboxParties = {
    apiUrl: options.apiUrl,
    temporalUiUrl: options.temporalUiUrl,
    adminToken: config.ADMIN_TOKEN,
    sandboxProvidersUrl: options.sandbox.providersUrl,
    collect: await provisionMerchant(db, config, options.sandbox),
    lending: await provisionLendingTenant(db),
    ...(options.sandbox.secondSmscUrl
      ? {
          secondSmsc: {
            url: options.sandbox.secondSmscUrl,
            systemId: config.SMPP_SYSTEM_ID,
            password: config.SMPP_PASSWORD,
            routesRefreshMs: config.SMS_ROUTES_REFRESH,
          },
        }
      : {}),
  };
  writePrivateFile(path.join(options.dataDir, SANDBOX_PARTIES_FILE), `${JSON.stringify(parties, null, 2)}\n`);
  return parties;
}

/** The parties `npm start` wrote to `dataDir`, or undefined when there are none. */
export function readSandboxParties(dataDir: string): SandboxParties | undefined {
  try {
    return JSON.parse(readFileSync(path.join(dataDir, SANDBOX_PARTIES_FILE), 'utf8')) as SandboxParties;
  } catch {
    return undefined;
  }
}
