import type { Config } from '../../platform/config.ts';
import { openSecret, sealSecret, secretBoxKey } from '../shared/secret-box.ts';

/**
 * Merchant secrets must stay usable as HMAC keys, so they are encrypted, not hashed: AES-256-GCM with
 * COLLECT_SECRET_KEY and the merchant's MIN as additional data (a ciphertext copied onto another
 * merchant's row does not decrypt), by the shared secret box (credentials/shared/secret-box.ts).
 * Stored as `v1.<iv>.<tag>.<data>`.
 */

/**
 * The development default: SHA-256 of a fixed text. Never used in production mode, where an unset
 * COLLECT_SECRET_KEY is a start-up error (secrets encrypted with a public key are not protected).
 */
const DEVELOPMENT_KEY_SEED = 'integration-platform collect development key';

export function collectSecretKey(config: Pick<Config, 'COLLECT_SECRET_KEY' | 'PLATFORM_MODE'>): Buffer {
  return secretBoxKey(
    config.COLLECT_SECRET_KEY,
    config.PLATFORM_MODE,
    'COLLECT_SECRET_KEY',
    DEVELOPMENT_KEY_SEED,
  );
}

export function encryptSecret(key: Buffer, min: string, secret: string): string {
  return sealSecret(key, min, secret);
}

export function decryptSecret(key: Buffer, min: string, stored: string): string {
  return openSecret(key, min, stored, `merchant ${min}`);
}
