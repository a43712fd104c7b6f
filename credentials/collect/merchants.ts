import { randomBytes, randomInt } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { collectMerchants } from '../../db/schema/collect.ts';
import { normaliseReturnOrigin } from '../../domain/collect/return-origins.ts';
import { assertOutboundUrl, outboundUrlPolicy } from '../../domain/outbound-url.ts';
import type { Config } from '../../platform/config.ts';
import { credentialCache, forgetCredentials } from '../shared/credential-cache.ts';
import { collectSecretKey, decryptSecret, encryptSecret } from './secret-box.ts';

/** A merchant with its secret decrypted, for computing and verifying CHECKSUMs. Never serialise it. */
export interface Merchant {
  /** Merchant id, `D` + 9 digits (e.g. `D123456789`). */
  min: string;
  name: string;
  /** The HMAC key of CHECKSUM (plain text). */
  secret: string;
  notifyUrl: string | undefined;
  billingUrl: string | undefined;
  billingIdnPrefix: string | undefined;
  /** Where form-field URL_OK / URL_CANCEL may send the customer back (decision 0013). */
  returnOrigins: string[];
  createdAt: Date;
}

type KeyConfig = Pick<Config, 'COLLECT_SECRET_KEY' | 'PLATFORM_MODE'>;

// Every ePay request checks its merchant's signature: the row is cached with the secret still sealed.
const merchantRows = credentialCache<typeof collectMerchants.$inferSelect>({
  name: 'collect-merchants',
  tables: [collectMerchants],
});

/** A merchant by MIN, or undefined when there is none. Used by the API and by activities. */
export async function loadMerchant(
  db: Database,
  config: KeyConfig,
  min: string,
): Promise<Merchant | undefined> {
  const row = await merchantRows.lookup(db, min, async () => {
    const [found] = await db.select().from(collectMerchants).where(eq(collectMerchants.min, min)).limit(1);
    return found;
  });
  if (!row) return undefined;
  return {
    min: row.min,
    name: row.name,
    secret: decryptSecret(collectSecretKey(config), row.min, row.secretCiphertext),
    notifyUrl: row.notifyUrl ?? undefined,
    billingUrl: row.billingUrl ?? undefined,
    billingIdnPrefix: row.billingIdnPrefix ?? undefined,
    returnOrigins: row.returnOrigins,
    createdAt: row.createdAt,
  };
}

/** The merchant whose billing system owns `idn` (the longest matching billing prefix), if any. */
export async function loadBillingMerchant(
  db: Database,
  config: KeyConfig,
  idn: string,
): Promise<Merchant | undefined> {
  const rows = await db
    .select({ min: collectMerchants.min, prefix: collectMerchants.billingIdnPrefix })
    .from(collectMerchants);
  const owner = rows
    .filter((row) => row.prefix && idn.startsWith(row.prefix))
    .sort((a, b) => (b.prefix?.length ?? 0) - (a.prefix?.length ?? 0))[0];
  return owner ? loadMerchant(db, config, owner.min) : undefined;
}

export interface NewMerchant {
  name: string;
  /** Chosen by the operator, or generated (`D` + 9 random digits). */
  min?: string | undefined;
  /** Chosen by the operator (tests, migrations from another gateway), or generated. */
  secret?: string | undefined;
  notifyUrl?: string | undefined;
  billingUrl?: string | undefined;
  billingIdnPrefix?: string | undefined;
  /** Origins of the shop's return pages (`https://shop.example`): see returnOriginsOf. */
  returnOrigins?: readonly string[] | undefined;
}

export interface CreatedMerchant {
  min: string;
  name: string;
  /** Shown once: only its encryption is stored, and no endpoint returns it again. */
  secret: string;
  notifyUrl: string | null;
  billingUrl: string | null;
  billingIdnPrefix: string | null;
  returnOrigins: string[];
}

export const MIN_PATTERN = /^D\d{9}$/;
/** Billing prefixes start with 9: generated obligation IDNs never do, so the two cannot collide. */
export const BILLING_PREFIX_PATTERN = /^9\d{1,5}$/;

export class MerchantConflict extends Error {
  constructor(
    readonly field: 'min' | 'billingIdnPrefix',
    message: string,
  ) {
    super(message);
    this.name = 'MerchantConflict';
  }
}

/** A random secret: 48 characters of base64url (288 bits), printable so merchants can paste it. */
export const generateMerchantSecret = () => randomBytes(36).toString('base64url');

const generateMin = () => `D${String(randomInt(100_000_000, 1_000_000_000))}`;

/**
 * Creates a merchant; throws MerchantConflict when the MIN or billing prefix is taken, and
 * OutboundUrlRefused when notifyUrl or billingUrl points inside the platform's network (decision 0027).
 */
export async function createMerchant(
  db: Database,
  config: KeyConfig & Pick<Config, 'OUTBOUND_URL_ALLOWLIST'>,
  input: NewMerchant,
): Promise<CreatedMerchant> {
  if (input.min !== undefined && !MIN_PATTERN.test(input.min)) throw new Error('min: D followed by 9 digits');
  const policy = outboundUrlPolicy(config);
  assertOutboundUrl(policy, 'notifyUrl', input.notifyUrl);
  assertOutboundUrl(policy, 'billingUrl', input.billingUrl);
  if (input.billingIdnPrefix !== undefined && !BILLING_PREFIX_PATTERN.test(input.billingIdnPrefix)) {
    throw new Error('billing prefix: 2 to 6 digits starting with 9');
  }
  const returnOrigins = returnOriginsOf(input.returnOrigins ?? []);
  const key = collectSecretKey(config);
  const secret = input.secret ?? generateMerchantSecret();
  if (input.billingIdnPrefix) {
    const [taken] = await db
      .select({ min: collectMerchants.min })
      .from(collectMerchants)
      .where(eq(collectMerchants.billingIdnPrefix, input.billingIdnPrefix));
    if (taken)
      throw new MerchantConflict('billingIdnPrefix', `billing prefix ${input.billingIdnPrefix} is taken`);
  }
  for (let attempt = 0; attempt < 5; attempt++) {
    const min = input.min ?? generateMin();
    const [row] = await db
      .insert(collectMerchants)
      .values({
        min,
        name: input.name,
        secretCiphertext: encryptSecret(key, min, secret),
        notifyUrl: input.notifyUrl ?? null,
        billingUrl: input.billingUrl ?? null,
        billingIdnPrefix: input.billingIdnPrefix ?? null,
        returnOrigins,
      })
      .onConflictDoNothing()
      .returning();
    if (row) {
      return {
        min: row.min,
        name: row.name,
        secret,
        notifyUrl: row.notifyUrl,
        billingUrl: row.billingUrl,
        billingIdnPrefix: row.billingIdnPrefix,
        returnOrigins: row.returnOrigins,
      };
    }
    if (input.min) throw new MerchantConflict('min', `merchant ${input.min} exists`);
  }
  throw new Error('could not allocate a free MIN');
}

/** A return origin that is not one (a path, a query, another scheme): the message says which. */
export class ReturnOriginRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReturnOriginRefused';
  }
}

/** The origins as stored: normalised (`https://Shop.example:443/` → `https://shop.example`), distinct. */
export function returnOriginsOf(values: readonly string[]): string[] {
  if (values.length > 20) throw new ReturnOriginRefused('at most 20 return origins');
  const origins = values.map((value) => {
    try {
      return normaliseReturnOrigin(value);
    } catch (error) {
      throw new ReturnOriginRefused((error as Error).message);
    }
  });
  return [...new Set(origins)];
}

/**
 * Replaces the merchant's return origins (an operator's setting: `npm run admin -- collect:return-origins`,
 * `PUT /admin/merchants/{min}/return-origins`); none leaves only the signed URL_OK / URL_CANCEL. Answers
 * the stored origins, or undefined when there is no such merchant.
 */
export async function setReturnOrigins(
  db: Database,
  min: string,
  values: readonly string[],
): Promise<string[] | undefined> {
  const returnOrigins = returnOriginsOf(values);
  const [row] = await db
    .update(collectMerchants)
    .set({ returnOrigins })
    .where(eq(collectMerchants.min, min))
    .returning({ returnOrigins: collectMerchants.returnOrigins });
  forgetCredentials(db, collectMerchants);
  return row?.returnOrigins;
}

/** The merchant's notification URL before and after `setNotifyUrl`. */
export interface NotifyUrlChange {
  notifyUrl: string | null;
  previousNotifyUrl: string | null;
}

/**
 * Points the merchant's status notifications at `notifyUrl` (none: notifications are kept, not sent;
 * `PATCH /admin/collect/merchants/{min}`, used by `npm run webhooks -- listen --service collect` to borrow
 * the URL for a session and give it back). Answers the URL it replaced, so the caller can restore it, or
 * undefined when there is no such merchant. Throws OutboundUrlRefused for a URL the outbound policy refuses
 * (decision 0027), as at creation; the next notification batch reads the new URL.
 */
export async function setNotifyUrl(
  db: Database,
  config: Pick<Config, 'OUTBOUND_URL_ALLOWLIST' | 'PLATFORM_MODE'>,
  min: string,
  notifyUrl: string | null,
): Promise<NotifyUrlChange | undefined> {
  assertOutboundUrl(outboundUrlPolicy(config), 'notifyUrl', notifyUrl ?? undefined);
  const change = await db.transaction(async (tx) => {
    const [before] = await tx
      .select({ notifyUrl: collectMerchants.notifyUrl })
      .from(collectMerchants)
      .where(eq(collectMerchants.min, min))
      .for('update');
    if (!before) return undefined;
    await tx.update(collectMerchants).set({ notifyUrl }).where(eq(collectMerchants.min, min));
    return { notifyUrl, previousNotifyUrl: before.notifyUrl };
  });
  forgetCredentials(db, collectMerchants);
  return change;
}
