import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { normaliseEncoded } from './packet.ts';

/**
 * CHECKSUM of the ENCODED endpoints: lowercase hex HMAC-SHA1 of the ENCODED text, exactly as sent
 * (line breaks included; spaces read as `+`), keyed with the merchant secret (UTF-8 bytes).
 *
 * Uses node:crypto, so workflow code must not import this file (the API and activities do).
 */
export function computeChecksum(encoded: string, secret: string): string {
  return createHmac('sha1', secret).update(normaliseEncoded(encoded)).digest('hex');
}

const HEX_SHA1 = /^[0-9a-fA-F]{40}$/;

/** Constant-time check of a presented CHECKSUM (any letter case) against the expected one. */
export function verifyChecksum(encoded: string, checksum: string, secret: string): boolean {
  const expected = Buffer.from(computeChecksum(encoded, secret), 'hex');
  // Both sides are 20 bytes: a presented value of another shape is refused without comparing.
  if (!HEX_SHA1.test(checksum)) return false;
  return timingSafeEqual(expected, Buffer.from(checksum, 'hex'));
}

/** SHA-256 of a canonical packet: what the read model keeps to recognise a resubmission. */
export function packetDigest(canonical: string): string {
  return createHash('sha256').update(canonical).digest('hex');
}
