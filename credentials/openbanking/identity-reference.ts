import { createHash } from 'node:crypto';
import type { Config } from '../../platform/config.ts';
import { openSecret, sealSecret } from '../shared/secret-box.ts';

/**
 * A user's `identityHash` (SignupDTO: the agent's own reference of the person, personal data) is kept
 * encrypted at rest, not as a digest, because the agent reads it back in its user records. AES-256-GCM
 * (credentials/shared/secret-box.ts) bound to the user's row, with a key derived from
 * OPENBANKING_KEY_ENCRYPTION_KEY (required in production; a development key otherwise).
 */
const keyOf = (config: Pick<Config, 'OPENBANKING_KEY_ENCRYPTION_KEY'>) =>
  createHash('sha256')
    .update(
      `ob-identity-reference:${config.OPENBANKING_KEY_ENCRYPTION_KEY ?? 'development key, not a secret'}`,
    )
    .digest();

const boundTo = (userId: string) => `ob_users.identity_hash:${userId}`;

export const sealIdentityReference = (config: Config, userId: string, identityHash: string) =>
  sealSecret(keyOf(config), boundTo(userId), identityHash);

export const openIdentityReference = (config: Config, userId: string, stored: string) =>
  openSecret(keyOf(config), boundTo(userId), stored, 'identity_hash');
