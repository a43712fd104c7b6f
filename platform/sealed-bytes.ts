import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * The one AES-256-GCM the platform seals with: Temporal payloads (platform/payload-codec.ts) and secrets
 * at rest (credentials/shared/secret-box.ts). In the ground so that the payload codec stands on nothing
 * above it (decision 0078).
 */

/** AES-256-GCM of `plaintext` bound to `additionalData`: the random 96-bit IV, the tag and the ciphertext. */
export function sealBytes(key: Buffer, additionalData: Uint8Array, plaintext: Uint8Array) {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(additionalData);
  const data = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), data };
}

/** Decrypts what sealBytes made; throws on another key, other additional data or a tampered part. */
export function openBytes(
  key: Buffer,
  additionalData: Uint8Array,
  sealed: { iv: Uint8Array; tag: Uint8Array; data: Uint8Array },
): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv);
  decipher.setAAD(additionalData);
  decipher.setAuthTag(sealed.tag);
  return Buffer.concat([decipher.update(sealed.data), decipher.final()]);
}
