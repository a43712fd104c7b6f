import { createHash, createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../platform/config.ts';
import { secretBoxKey } from '../shared/secret-box.ts';

/**
 * Codes that sign loan documents (decision 0040): six random digits, sent by SMS and stored only as a
 * keyed digest (HMAC-SHA-256 with a key derived from LENDING_DATA_KEY, bound to the code's row), so a
 * leaked table does not give a code away by trying the million candidates.
 */
const DEVELOPMENT_KEY_SEED = 'integration-platform lending development data key';

type KeyConfig = Pick<Config, 'LENDING_DATA_KEY' | 'PLATFORM_MODE'>;

const digestKeyOf = (config: KeyConfig) =>
  createHash('sha256')
    .update('lending-signing-code:')
    .update(
      secretBoxKey(config.LENDING_DATA_KEY, config.PLATFORM_MODE, 'LENDING_DATA_KEY', DEVELOPMENT_KEY_SEED),
    )
    .digest();

/** Six random digits. */
export const newSigningCode = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

/** The stored form of a code sent for `boundTo` (the tenant, loan, document and the code's row). */
export const signingCodeDigest = (config: KeyConfig, boundTo: string, code: string) =>
  createHmac('sha256', digestKeyOf(config)).update(`${boundTo}\u0000${code.trim()}`).digest('hex');

/** Whether `code` is the one whose digest was stored; constant time (digests have equal length). */
export function signingCodeMatches(
  config: KeyConfig,
  boundTo: string,
  code: string,
  stored: string,
): boolean {
  const presented = Buffer.from(signingCodeDigest(config, boundTo, code), 'hex');
  const expected = Buffer.from(stored, 'hex');
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}
