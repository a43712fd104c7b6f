import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Config } from '../../platform/config.ts';

/**
 * Merchant secrets must stay usable as HMAC keys, so they are encrypted, not hashed: AES-256-GCM with
 * COLLECT_SECRET_KEY, a random 96-bit IV per secret, and the merchant's MIN as additional data (a
 * ciphertext copied onto another merchant's row does not decrypt). Stored as `v1.<iv>.<tag>.<data>`.
 */
const VERSION = 'v1';

/**
 * The development default: SHA-256 of a fixed text. Never used in production mode, where an unset
 * COLLECT_SECRET_KEY is a start-up error (secrets encrypted with a public key are not protected).
 */
const DEVELOPMENT_KEY_SEED = 'integration-platform collect development key';

export function collectSecretKey(config: Pick<Config, 'COLLECT_SECRET_KEY' | 'PLATFORM_MODE'>): Buffer {
  if (config.COLLECT_SECRET_KEY) return Buffer.from(config.COLLECT_SECRET_KEY, 'hex');
  if (config.PLATFORM_MODE === 'production') {
    throw new Error('COLLECT_SECRET_KEY: required in production mode (64 hex characters)');
  }
  return createHash('sha256').update(DEVELOPMENT_KEY_SEED).digest();
}

export function encryptSecret(key: Buffer, min: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(min));
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), data]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

export function decryptSecret(key: Buffer, min: string, stored: string): string {
  const [version, iv, tag, data] = stored.split('.');
  if (version !== VERSION || !iv || !tag || data === undefined) {
    throw new Error(`merchant ${min}: unknown secret format`);
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(min));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}
