import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { collectDeskOperators, collectDeskSessions } from '../../db/schema/collect-desk.ts';
import { DESK_LOGIN_PATTERN, type DeskOfficeKind, OFFICE_ID_PATTERN } from '../../domain/collect/desk.ts';

/**
 * Cash-desk operators (decision 0030): created by the platform operator with a login and a password
 * kept only as a scrypt hash; a login answers a random session token (bearer for the desk API, an
 * HttpOnly cookie for the desk page) of which only the SHA-256 is kept.
 */

export interface DeskOperator {
  id: string;
  login: string;
  name: string;
  officeId: string;
  officeKind: DeskOfficeKind;
}

export interface NewDeskOperator {
  login: string;
  name: string;
  officeId: string;
  officeKind: DeskOfficeKind;
  /** Chosen by the platform operator, or generated (then shown once). */
  password?: string | undefined;
}

/** scrypt cost: N=2^15, r=8, p=1 (about 32 MiB and tens of milliseconds per check). */
const SCRYPT = { N: 32_768, r: 8, p: 1, keyLength: 32, maxmem: 64 * 1024 * 1024 };
export const MIN_PASSWORD_LENGTH = 12;

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

/** A hash that no password matches, checked when the login is unknown so both take the same time. */
let decoyHash: Promise<string> | undefined;

export class DeskOperatorExists extends Error {
  constructor(login: string) {
    super(`a desk operator with login ${login} exists`);
    this.name = 'DeskOperatorExists';
  }
}

const operatorOf = (row: typeof collectDeskOperators.$inferSelect): DeskOperator => ({
  id: row.id,
  login: row.login,
  name: row.name,
  officeId: row.officeId,
  officeKind: row.officeKind,
});

/** Creates an operator; a generated password is in the result and nowhere else in plain text. */
export async function createDeskOperator(
  db: Database,
  input: NewDeskOperator,
): Promise<DeskOperator & { password: string }> {
  if (!OFFICE_ID_PATTERN.test(input.officeId)) throw new Error('officeId must be 6 digits');
  if (!DESK_LOGIN_PATTERN.test(input.login)) throw new Error('login: 3-64 lower-case letters, digits, . _ -');
  const password = input.password ?? randomBytes(18).toString('base64url');
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new Error(`the password must have at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  const id = `dop_${randomBytes(12).toString('base64url')}`;
  const [row] = await db
    .insert(collectDeskOperators)
    .values({
      id,
      login: input.login,
      name: input.name,
      officeId: input.officeId,
      officeKind: input.officeKind,
      passwordHash: await hashPassword(password),
    })
    .onConflictDoNothing()
    .returning();
  if (!row) throw new DeskOperatorExists(input.login);
  return { ...operatorOf(row), password };
}

const SANDBOX_DESK_ID = 'dop_sandbox_demo_desk';

/**
 * The desk the sandbox demo endpoints (pay_bill.cgi, pay_money_send.cgi) act as: office 000001,
 * without a password, so nobody can log in as it.
 */
export async function sandboxDeskOperator(db: Database): Promise<DeskOperator> {
  const values = {
    id: SANDBOX_DESK_ID,
    login: 'sandbox-demo-desk',
    name: 'Sandbox demo office',
    officeId: '000001',
    officeKind: 'office' as const,
  };
  await db.insert(collectDeskOperators).values(values).onConflictDoNothing();
  return values;
}

const sha256 = (token: string) => createHash('sha256').update(token).digest('hex');

/** Checks the login and password; answers a new session token, or undefined (same time either way). */
export async function logInDeskOperator(
  db: Database,
  credentials: { login: string; password: string },
  sessionTtlMs: number,
): Promise<{ operator: DeskOperator; token: string; expiresAt: Date } | undefined> {
  const [row] = await db
    .select()
    .from(collectDeskOperators)
    .where(eq(collectDeskOperators.login, credentials.login));
  decoyHash ??= hashPassword(randomBytes(16).toString('hex'));
  const stored = row?.passwordHash ?? (await decoyHash);
  const valid = await verifyPassword(credentials.password, stored);
  if (!row?.passwordHash || row.disabledAt || !valid) return undefined;
  const token = `dsk_${randomBytes(32).toString('base64url')}`;
  const expiresAt = new Date(Date.now() + sessionTtlMs);
  await db.insert(collectDeskSessions).values({ tokenHash: sha256(token), operatorId: row.id, expiresAt });
  return { operator: operatorOf(row), token, expiresAt };
}

/** The operator of a live session token (not expired, not revoked, operator not disabled). */
export async function deskOperatorOfSession(db: Database, token: string): Promise<DeskOperator | undefined> {
  const [row] = await db
    .select({ operator: collectDeskOperators })
    .from(collectDeskSessions)
    .innerJoin(collectDeskOperators, eq(collectDeskOperators.id, collectDeskSessions.operatorId))
    .where(
      and(
        eq(collectDeskSessions.tokenHash, sha256(token)),
        isNull(collectDeskSessions.revokedAt),
        gt(collectDeskSessions.expiresAt, new Date()),
        isNull(collectDeskOperators.disabledAt),
      ),
    );
  return row ? operatorOf(row.operator) : undefined;
}

export async function revokeDeskSession(db: Database, token: string): Promise<void> {
  await db
    .update(collectDeskSessions)
    .set({ revokedAt: new Date() })
    .where(eq(collectDeskSessions.tokenHash, sha256(token)));
}
