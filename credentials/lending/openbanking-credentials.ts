import type { Config } from '../../platform/config.ts';
import { openSecret, sealSecret, secretBoxKey } from '../shared/secret-box.ts';

/**
 * The open-banking gateway's hashes lending must present again (its own agent hash when it signed
 * itself up, each customer's user hash): encrypted at rest with LENDING_DATA_KEY (AES-256-GCM,
 * credentials/shared/secret-box.ts) and bound to the row they belong to, never stored in plain.
 */
const DEVELOPMENT_KEY_SEED = 'integration-platform lending open-banking development key';

type KeyConfig = Pick<Config, 'LENDING_DATA_KEY' | 'PLATFORM_MODE'>;

const keyOf = (config: KeyConfig) =>
  secretBoxKey(config.LENDING_DATA_KEY, config.PLATFORM_MODE, 'LENDING_DATA_KEY', DEVELOPMENT_KEY_SEED);

export type OpenBankingHashKind = 'agent' | 'user';

/** `owner`: the gateway URL for the agent's hash, `<customerId>:<agentId>` for a user's. */
export const sealOpenBankingHash = (
  config: KeyConfig,
  kind: OpenBankingHashKind,
  owner: string,
  hash: string,
) => sealSecret(keyOf(config), `lending-openbanking-${kind}:${owner}`, hash);

export const openOpenBankingHash = (
  config: KeyConfig,
  kind: OpenBankingHashKind,
  owner: string,
  stored: string,
) => openSecret(keyOf(config), `lending-openbanking-${kind}:${owner}`, stored, `${kind} hash`);
