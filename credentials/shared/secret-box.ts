import { createHash } from 'node:crypto';
import { openBytes, sealBytes } from '../../platform/sealed-bytes.ts';

/**
 * Secrets the platform must keep usable (HMAC keys it signs or verifies with) are encrypted at rest,
 * not hashed: AES-256-GCM with a key from configuration, a random 96-bit IV per secret, and additional
 * data naming the row it belongs to (a ciphertext copied onto another row does not decrypt). Stored
 * as `v1.<iv>.<tag>.<data>` (base64url parts). Used by the collect gateway's merchant and one-touch
 * secrets (credentials/collect/secret-box.ts) and by webhook signing secrets (credentials/webhooks/).
 */
const VERSION = 'v1';

/**
 * The key of one kind of secret: `configured` (64 hex characters) when given; else, outside production,
 * SHA-256 of a fixed development seed. In production an unset key is an error naming `variable`
 * (secrets encrypted with a public key are not protected).
 */
export function secretBoxKey(
  configured: string | undefined,
  mode: 'sandbox' | 'production',
  variable: string,
  developmentSeed: string,
): Buffer {
  if (configured) return Buffer.from(configured, 'hex');
  if (mode === 'production') {
    throw new Error(`${variable}: required in production mode (64 hex characters)`);
  }
  return createHash('sha256').update(developmentSeed).digest();
}

/** Encrypts `secret`, bound to `additionalData` (the row it belongs to). */
export function sealSecret(key: Buffer, additionalData: string, secret: string): string {
  const { iv, tag, data } = sealBytes(key, Buffer.from(additionalData), Buffer.from(secret, 'utf8'));
  return [VERSION, iv, tag, data]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** Decrypts what sealSecret stored; throws on another key, other additional data or a tampered value. */
export function openSecret(key: Buffer, additionalData: string, stored: string, label: string): string {
  const [version, iv, tag, data] = stored.split('.');
  if (version !== VERSION || !iv || !tag || data === undefined) {
    throw new Error(`${label}: unknown secret format`);
  }
  return openBytes(key, Buffer.from(additionalData), {
    iv: Buffer.from(iv, 'base64url'),
    tag: Buffer.from(tag, 'base64url'),
    data: Buffer.from(data, 'base64url'),
  }).toString('utf8');
}
