import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * The platform's password hash: scrypt N=2^15, r=8, p=1 (about 32 MiB and tens of milliseconds per
 * check), stored as `scrypt$N$r$p$<salt>$<key>` (base64url). Used by the cash-desk operators
 * (credentials/collect/desk-operators.ts) and the lending users (credentials/lending/users.ts).
 */
const SCRYPT = { N: 32_768, r: 8, p: 1, keyLength: 32, maxmem: 64 * 1024 * 1024 };

function scryptHash(password: string, salt: Buffer, params: { N: number; r: number; p: number }) {
  return new Promise<Buffer>((resolve, reject) =>
    scrypt(
      password.normalize('NFKC'),
      salt,
      SCRYPT.keyLength,
      { ...params, maxmem: SCRYPT.maxmem },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptHash(password, salt, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join(
    '$',
  );
}

/** Constant-time check of a password against its stored hash (any malformed hash: false). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scryptHash(password, Buffer.from(salt, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * A hash no password matches, for checking when the login is unknown, so that an unknown login and a
 * wrong password take as long (one per process, made on first use).
 */
let decoy: Promise<string> | undefined;
export const decoyPasswordHash = () => (decoy ??= hashPassword(randomBytes(16).toString('hex')));
