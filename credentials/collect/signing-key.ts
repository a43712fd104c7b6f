import {
  createPrivateKey,
  createPublicKey,
  createSign,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../../platform/config.ts';
import { prepareDataDir } from '../../platform/data-dir.ts';

/**
 * The gateway's notification signing key. SIGNATURE = base64 of RSASSA-PKCS1-v1_5 with SHA-256
 * over the ENCODED text (the exact characters POSTed). The public key (SPKI PEM) is published at
 * GET /collect/.well-known/notification-key.pem.
 *
 * COLLECT_SIGNING_KEY (PEM) in production; elsewhere, when unset, a 2048-bit key is generated once
 * and kept in DATA_DIR/collect-signing-key.pem, so the API and the worker of one installation (and
 * later starts) sign and publish with the same key.
 */
export const SIGNATURE_ALGORITHM = 'RSA-SHA256';
const KEY_FILE = 'collect-signing-key.pem';

type KeyConfig = Pick<Config, 'COLLECT_SIGNING_KEY' | 'PLATFORM_MODE' | 'DATA_DIR'>;

export interface SigningKey {
  privateKey: KeyObject;
  /** SPKI PEM, as published. */
  publicKeyPem: string;
}

const cache = new Map<string, SigningKey>();

function readOrCreateKeyFile(dataDir: string): string {
  const file = path.join(dataDir, KEY_FILE);
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  prepareDataDir(dataDir);
  // Written whole under a temporary name, then linked into place: a racing process never reads a
  // half-written key, and when two race the first link wins (EEXIST) and both use that key.
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(temporary, pem, { mode: 0o600 });
  try {
    linkSync(temporary, file);
    return pem;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readFileSync(file, 'utf8');
  } finally {
    unlinkSync(temporary);
  }
}

export function collectSigningKey(config: KeyConfig): SigningKey {
  let pem = config.COLLECT_SIGNING_KEY;
  if (!pem) {
    if (config.PLATFORM_MODE === 'production') {
      throw new Error('COLLECT_SIGNING_KEY: required in production mode (an RSA private key, PEM)');
    }
    pem = readOrCreateKeyFile(config.DATA_DIR);
  }
  const cached = cache.get(pem);
  if (cached) return cached;
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'rsa') throw new Error('COLLECT_SIGNING_KEY: must be an RSA key');
  const key: SigningKey = {
    privateKey,
    publicKeyPem: createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString(),
  };
  cache.set(pem, key);
  return key;
}

/** SIGNATURE of one notification: base64 RSA-SHA256 over the ENCODED text. */
export function signNotification(key: SigningKey, encoded: string): string {
  return createSign(SIGNATURE_ALGORITHM).update(encoded, 'utf8').sign(key.privateKey, 'base64');
}
