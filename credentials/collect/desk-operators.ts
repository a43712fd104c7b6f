import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { collectDeskOperators, collectDeskSessions } from '../../db/schema/collect-desk.ts';
import { DESK_LOGIN_PATTERN, type DeskOfficeKind, OFFICE_ID_PATTERN } from '../../domain/collect/desk.ts';
import { decoyPasswordHash, hashPassword, verifyPassword } from '../shared/passwords.ts';

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

export const MIN_PASSWORD_LENGTH = 12;

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
  // An unknown login is checked against a hash no password matches, so both take the same time.
  const stored = row?.passwordHash ?? (await decoyPasswordHash());
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
