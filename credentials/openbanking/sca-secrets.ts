import { createHash, randomBytes } from 'node:crypto';
import { eq, lte } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { obScaSecrets } from '../../db/schema/openbanking-sca-secrets.ts';
import type { Config } from '../../platform/config.ts';
import { openSecret, sealSecret } from '../shared/secret-box.ts';

/**
 * The secret fields of an embedded SCA step (bank user id and password, one-time code) on their way to
 * the bank without crossing the Temporal engine (decision 0068): the request seals them into
 * ob_sca_secrets and sends the workflow only the row's random id; the activity that calls the bank takes
 * them, deleting the row in the same statement. AES-256-GCM (credentials/shared/secret-box.ts) bound to
 * the row and its process, with a key derived from OPENBANKING_KEY_ENCRYPTION_KEY.
 */
type KeyConfig = Pick<Config, 'OPENBANKING_KEY_ENCRYPTION_KEY'>;

const keyOf = (config: KeyConfig) =>
  createHash('sha256')
    .update(`ob-sca-secrets:${config.OPENBANKING_KEY_ENCRYPTION_KEY ?? 'development key, not a secret'}`)
    .digest();

const boundTo = (id: string, subject: string) => `ob_sca_secrets:${id}:${subject}`;

/** The process a held step belongs to: another process's workflow cannot take it. */
export const scaSecretSubject = {
  consent: (consentId: string) => `consent:${consentId}`,
  payment: (code: string) => `payment:${code}`,
};

/**
 * Seals `fields` for the process `subject` for `ttlMs` and answers the reference to hand the workflow.
 * Entries past their expiry (never taken: a crash between writing and answering) are purged here.
 */
export async function holdScaSecrets(
  db: Database,
  config: KeyConfig,
  subject: string,
  fields: Record<string, string>,
  ttlMs: number,
): Promise<string> {
  const now = new Date();
  await db.delete(obScaSecrets).where(lte(obScaSecrets.expiresAt, now));
  const id = randomBytes(18).toString('base64url');
  await db.insert(obScaSecrets).values({
    id,
    subject,
    sealed: sealSecret(keyOf(config), boundTo(id, subject), JSON.stringify(fields)),
    expiresAt: new Date(now.getTime() + ttlMs),
  });
  return id;
}

/**
 * Takes the held step: deletes its row and answers its fields in one statement (DELETE … RETURNING), so
 * it is relayed at most once. Undefined when it is gone (taken already, purged) or expired.
 */
export async function takeScaSecrets(
  db: Database,
  config: KeyConfig,
  id: string,
  subject: string,
): Promise<Record<string, string> | undefined> {
  const [row] = await db.delete(obScaSecrets).where(eq(obScaSecrets.id, id)).returning({
    subject: obScaSecrets.subject,
    sealed: obScaSecrets.sealed,
    expiresAt: obScaSecrets.expiresAt,
  });
  if (!row || row.subject !== subject || row.expiresAt.getTime() <= Date.now()) return undefined;
  return JSON.parse(openSecret(keyOf(config), boundTo(id, subject), row.sealed, 'held SCA step')) as Record<
    string,
    string
  >;
}

/** Deletes a held step whatever became of it (the request has its answer); nothing when taken already. */
export async function dropScaSecrets(db: Database, id: string): Promise<void> {
  await db.delete(obScaSecrets).where(eq(obScaSecrets.id, id));
}
