import { createCipheriv, createDecipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import { and, eq, gt, or } from 'drizzle-orm';
import {
  CompactSign,
  type CryptoKey,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from 'jose';
import type { Database } from '../../db/client.ts';
import { obSigningKeys } from '../../db/schema/openbanking.ts';
import type { Config } from '../../platform/config.ts';

/**
 * The open-banking gateway's signing keys: JWTs (user tokens, AIS links) and JWS (webhook payloads)
 * are signed with ES256 by the one `current` key of ob_signing_keys, whose `kid` is in the header.
 * `GET /openbanking/api/6/.well-known/jwks.json` publishes the current key and every key retired less
 * than OPENBANKING_SIGNING_KEY_RETENTION ago, so what an old key signed stays verifiable after rotation.
 *
 *   signJwt(db, config, { audience, subject, expiresInMs, claims })   → compact JWT
 *   signJws(db, config, payload, { detached })                         → compact JWS (for webhook bodies)
 *   rotateSigningKey(db, config)                                        → new current key, old one retired
 *
 * A key is created on first use, and replaced when older than OPENBANKING_SIGNING_KEY_MAX_AGE.
 * Private keys are stored encrypted (AES-256-GCM, key = SHA-256 of OPENBANKING_KEY_ENCRYPTION_KEY; the
 * sandbox has a fixed development key, production refuses to sign without the variable).
 */

export const SIGNING_ALG = 'ES256';
export const TOKEN_ISSUER = 'integration-platform/openbanking';
/** Audiences keep one kind of signed token from being accepted as another. */
export const AUDIENCE = { userToken: 'openbanking:user', aisLink: 'openbanking:ais-link' } as const;

const SANDBOX_KEY_ENCRYPTION_KEY = 'sandbox-only: openbanking signing keys are not secret here';

type SigningKeyRow = typeof obSigningKeys.$inferSelect;

function encryptionKey(config: Config): Buffer {
  const secret = config.OPENBANKING_KEY_ENCRYPTION_KEY;
  if (!secret && config.PLATFORM_MODE === 'production') {
    throw new Error('OPENBANKING_KEY_ENCRYPTION_KEY: required in production to encrypt the signing keys');
  }
  return createHash('sha256')
    .update(secret ?? SANDBOX_KEY_ENCRYPTION_KEY)
    .digest();
}

function encryptPrivateKey(config: Config, kid: string, jwk: JWK): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', encryptionKey(config), iv);
  cipher.setAAD(Buffer.from(kid)); // bound to its kid: a ciphertext moved to another row does not decrypt
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(jwk), 'utf8'), cipher.final()]);
  return [iv, ciphertext, cipher.getAuthTag()].map((part) => part.toString('base64url')).join('.');
}

function decryptPrivateKey(config: Config, kid: string, sealed: string): JWK {
  const [iv, ciphertext, tag] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
  const decipher = createDecipheriv('aes-256-gcm', encryptionKey(config), iv!);
  decipher.setAAD(Buffer.from(kid));
  decipher.setAuthTag(tag!);
  return JSON.parse(Buffer.concat([decipher.update(ciphertext!), decipher.final()]).toString('utf8')) as JWK;
}

// Keys never change once created, so imported keys are cached by kid.
const privateKeys = new Map<string, CryptoKey>();
const publicKeys = new Map<string, CryptoKey>();

async function privateKeyOf(config: Config, row: SigningKeyRow): Promise<CryptoKey> {
  let key = privateKeys.get(row.kid);
  if (!key) {
    key = (await importJWK(
      decryptPrivateKey(config, row.kid, row.privateKeyEncrypted),
      row.alg,
    )) as CryptoKey;
    privateKeys.set(row.kid, key);
  }
  return key;
}

async function publicKeyOf(row: SigningKeyRow): Promise<CryptoKey> {
  let key = publicKeys.get(row.kid);
  if (!key) {
    key = (await importJWK(row.publicJwk as JWK, row.alg)) as CryptoKey;
    publicKeys.set(row.kid, key);
  }
  return key;
}

async function newKeyRow(config: Config) {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const kid = `obk_${new Date().toISOString().slice(0, 10).replaceAll('-', '')}_${randomUUID().slice(0, 8)}`;
  return {
    kid,
    alg: SIGNING_ALG,
    status: 'current' as const,
    publicJwk: { ...(await exportJWK(publicKey)) } as Record<string, unknown>,
    privateKeyEncrypted: encryptPrivateKey(config, kid, await exportJWK(privateKey)),
  };
}

async function readCurrent(db: Database): Promise<SigningKeyRow | undefined> {
  const [row] = await db.select().from(obSigningKeys).where(eq(obSigningKeys.status, 'current')).limit(1);
  return row;
}

/**
 * Retires the current key (if any) and makes a new one current. Returns the new current key's kid.
 * Safe against concurrent rotations: only the caller that retires the current row inserts a new one.
 */
export async function rotateSigningKey(
  db: Database,
  config: Config,
  options: { onlyIfKid?: string } = {},
): Promise<{ kid: string; retiredKid?: string }> {
  const fresh = await newKeyRow(config);
  return db.transaction(async (tx) => {
    const current = await readCurrent(tx as unknown as Database);
    if (current && options.onlyIfKid && current.kid !== options.onlyIfKid) {
      return { kid: current.kid }; // someone else rotated it meanwhile
    }
    if (current) {
      const retired = await tx
        .update(obSigningKeys)
        .set({ status: 'retired', retiredAt: new Date() })
        .where(and(eq(obSigningKeys.kid, current.kid), eq(obSigningKeys.status, 'current')))
        .returning({ kid: obSigningKeys.kid });
      if (retired.length === 0) {
        const now = await readCurrent(tx as unknown as Database);
        if (now) return { kid: now.kid };
      }
    }
    const inserted = await tx
      .insert(obSigningKeys)
      .values(fresh)
      .onConflictDoNothing()
      .returning({ kid: obSigningKeys.kid });
    if (inserted.length === 0) {
      const now = await readCurrent(tx as unknown as Database);
      return { kid: now!.kid };
    }
    return { kid: fresh.kid, ...(current ? { retiredKid: current.kid } : {}) };
  });
}

/** The current signing key, created on first use and rotated when older than the configured maximum age. */
export async function currentSigningKey(db: Database, config: Config): Promise<SigningKeyRow> {
  let row = await readCurrent(db);
  if (!row) {
    // First use: concurrent creators collide on the one-current-key index; the loser reads the winner.
    await db
      .insert(obSigningKeys)
      .values(await newKeyRow(config))
      .onConflictDoNothing();
    row = await readCurrent(db);
  } else if (Date.now() - row.createdAt.getTime() > config.OPENBANKING_SIGNING_KEY_MAX_AGE) {
    await rotateSigningKey(db, config, { onlyIfKid: row.kid });
    row = await readCurrent(db);
  }
  if (!row) throw new Error('no current open-banking signing key');
  return row;
}

/** Keys whose signatures verify: the current one and those retired within the retention period. */
async function publishedKeyRows(db: Database, config: Config): Promise<SigningKeyRow[]> {
  await currentSigningKey(db, config);
  const since = new Date(Date.now() - config.OPENBANKING_SIGNING_KEY_RETENTION);
  return db
    .select()
    .from(obSigningKeys)
    .where(or(eq(obSigningKeys.status, 'current'), gt(obSigningKeys.retiredAt, since)))
    .orderBy(obSigningKeys.createdAt);
}

export interface PublishedJwk extends JWK {
  kid: string;
  alg: string;
  use: 'sig';
}

/** The JWKS document: `{ keys: [...] }`, public parts only, current key last. */
export async function publishedJwks(db: Database, config: Config): Promise<{ keys: PublishedJwk[] }> {
  const rows = await publishedKeyRows(db, config);
  return {
    keys: rows.map((row) => ({ ...(row.publicJwk as JWK), kid: row.kid, alg: row.alg, use: 'sig' as const })),
  };
}

export interface JwtOptions {
  audience: string;
  subject: string;
  expiresInMs: number;
  /** Further claims (e.g. `agent`). */
  claims?: JWTPayload;
}

/** Signs a JWT with the current key: iss, aud, sub, iat, exp, jti; header alg, kid, typ JWT. */
export async function signJwt(
  db: Database,
  config: Config,
  options: JwtOptions,
): Promise<{ token: string; kid: string; expiresAt: Date }> {
  const key = await currentSigningKey(db, config);
  const issuedAt = Math.floor(Date.now() / 1000);
  const expiresAt = new Date(issuedAt * 1000 + options.expiresInMs);
  const token = await new SignJWT({ ...options.claims })
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .setIssuer(TOKEN_ISSUER)
    .setAudience(options.audience)
    .setSubject(options.subject)
    .setIssuedAt(issuedAt)
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .setJti(randomUUID())
    .sign(await privateKeyOf(config, key));
  return { token, kid: key.kid, expiresAt };
}

/**
 * Signs a payload (a webhook body: pass the exact bytes or string sent) as a compact JWS with the current
 * key. `detached: true` returns `header..signature` (RFC 7515 appendix F), to send beside the body in a
 * header; the receiver re-inserts base64url(body) and verifies with the published JWKS.
 */
export async function signJws(
  db: Database,
  config: Config,
  payload: string | Uint8Array | object,
  options: { detached?: boolean; contentType?: string } = {},
): Promise<{ jws: string; kid: string }> {
  const key = await currentSigningKey(db, config);
  const bytes =
    typeof payload === 'string'
      ? new TextEncoder().encode(payload)
      : payload instanceof Uint8Array
        ? payload
        : new TextEncoder().encode(JSON.stringify(payload));
  const compact = await new CompactSign(bytes)
    .setProtectedHeader({
      alg: key.alg,
      kid: key.kid,
      ...(options.contentType ? { cty: options.contentType } : {}),
    })
    .sign(await privateKeyOf(config, key));
  if (!options.detached) return { jws: compact, kid: key.kid };
  const [header, , signature] = compact.split('.');
  return { jws: `${header}..${signature}`, kid: key.kid };
}

/** Verifies a JWT signed by this gateway for `audience` (published keys only); undefined when invalid. */
export async function verifyJwt(
  db: Database,
  config: Config,
  token: string,
  audience: string,
): Promise<JWTPayload | undefined> {
  try {
    const rows = await publishedKeyRows(db, config);
    const { payload } = await jwtVerify(
      token,
      async (header) => {
        const row = rows.find((candidate) => candidate.kid === header.kid);
        if (!row) throw new Error('unknown kid');
        return publicKeyOf(row);
      },
      { issuer: TOKEN_ISSUER, audience, algorithms: [SIGNING_ALG] },
    );
    return payload;
  } catch {
    return undefined;
  }
}

/** The user and agent of a valid, unexpired user token (POST usertoken); undefined otherwise. */
export async function verifyUserToken(
  db: Database,
  config: Config,
  token: string,
): Promise<{ userId: string; agentId: string } | undefined> {
  const payload = await verifyJwt(db, config, token, AUDIENCE.userToken);
  if (!payload?.sub || typeof payload.agent !== 'string') return undefined;
  return { userId: payload.sub, agentId: payload.agent };
}
