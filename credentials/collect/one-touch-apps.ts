import { randomBytes, randomInt } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { collectOneTouchApps } from '../../db/schema/collect-one-touch.ts';
import type { Config } from '../../platform/config.ts';
import { collectSecretKey, decryptSecret, encryptSecret } from './secret-box.ts';

/**
 * One-touch applications: an APPID and a SECRET. The secret keys the CHECKSUM HMAC of no-registration
 * payments, so it is encrypted at rest with COLLECT_SECRET_KEY (as merchant secrets are) and shown
 * only once, when the application is created.
 */
type KeyConfig = Pick<Config, 'COLLECT_SECRET_KEY' | 'PLATFORM_MODE'>;

/** Additional data of the encryption: a merchant's ciphertext copied onto an application does not open. */
const aadOf = (appId: string) => `one-touch:${appId}`;

export interface OneTouchApp {
  appId: string;
  name: string;
  /** Plain text; never serialise it. */
  secret: string;
}

export interface NewOneTouchApp {
  name: string;
  /** Chosen by the operator (tests, migration from another gateway), or generated. */
  appId?: string | undefined;
  secret?: string | undefined;
}

/** APPIDs are long digit strings, as ePay.bg's are, so clients that store them as such keep working. */
export const APP_ID_PATTERN = /^[0-9A-Za-z_-]{8,128}$/;
const generateAppId = () => Array.from({ length: 40 }, () => String(randomInt(10))).join('');
const generateSecret = () => randomBytes(36).toString('base64url');

export class OneTouchAppExists extends Error {
  constructor(appId: string) {
    super(`application ${appId} exists`);
    this.name = 'OneTouchAppExists';
  }
}

/** Creates an application; its secret is in the result and nowhere else in plain text. */
export async function createOneTouchApp(
  db: Database,
  config: KeyConfig,
  input: NewOneTouchApp,
): Promise<OneTouchApp> {
  const key = collectSecretKey(config);
  const appId = input.appId ?? generateAppId();
  const secret = input.secret ?? generateSecret();
  const [row] = await db
    .insert(collectOneTouchApps)
    .values({ id: appId, name: input.name, secretCiphertext: encryptSecret(key, aadOf(appId), secret) })
    .onConflictDoNothing()
    .returning({ id: collectOneTouchApps.id });
  if (!row) throw new OneTouchAppExists(appId);
  return { appId, name: input.name, secret };
}

/** The application with its secret decrypted, or undefined for an unknown APPID. */
export async function loadOneTouchApp(
  db: Database,
  config: KeyConfig,
  appId: string,
): Promise<OneTouchApp | undefined> {
  const [row] = await db.select().from(collectOneTouchApps).where(eq(collectOneTouchApps.id, appId)).limit(1);
  if (!row) return undefined;
  return {
    appId: row.id,
    name: row.name,
    secret: decryptSecret(collectSecretKey(config), aadOf(row.id), row.secretCiphertext),
  };
}

/** Whether the APPID names an application (no decryption: most calls need only that). */
export async function oneTouchAppExists(db: Database, appId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: collectOneTouchApps.id })
    .from(collectOneTouchApps)
    .where(eq(collectOneTouchApps.id, appId))
    .limit(1);
  return row !== undefined;
}
