import { createHash, createHmac, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, ne } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { lendingPasswordResets, lendingUsers, lendingUserTokens } from '../../db/schema/lending.ts';
import { normalizeLogin } from '../../domain/lending/customers.ts';
import type { LendingUser } from '../../domain/lending/tenancy.ts';
import type { Config } from '../../platform/config.ts';
import { credentialCache, forgetCredentials } from '../shared/credential-cache.ts';
import { decoyPasswordHash, hashPassword, verifyPassword } from '../shared/passwords.ts';
import { forgetLoginFailures } from './login-throttle.ts';
import { lendingDataKey } from './personal-data.ts';

/**
 * Lending users' credentials (decision 0037): passwords as scrypt hashes (the platform's one password
 * hash, credentials/shared/passwords.ts); `lender_UserAuthToken`s as random values of which only the
 * SHA-256 digest is stored, password reset codes as random values of which only a keyed digest
 * (HMAC-SHA-256 with a key derived from LENDING_DATA_KEY, bound to the tenant) is stored; each bound
 * to one user of one tenant and expiring. A token presented with another tenant's key does not resolve.
 */

type UserRow = typeof lendingUsers.$inferSelect;

const userOf = (row: UserRow): LendingUser => ({
  id: row.id,
  login: row.login,
  role: row.role,
  ...(row.customerId ? { customerId: row.customerId } : {}),
});

/** SHA-256 (hex) of a token or code: the only form in which they are stored. */
export const digestOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

type KeyConfig = Pick<Config, 'LENDING_DATA_KEY' | 'PLATFORM_MODE'>;

const resetDigestKeyOf = (config: KeyConfig) =>
  createHash('sha256').update('lending-password-reset:').update(lendingDataKey(config)).digest();

/** The stored form of a password reset code of `tenantId`: a keyed digest, never the code. */
export const resetCodeDigest = (config: KeyConfig, tenantId: string, code: string) =>
  createHmac('sha256', resetDigestKeyOf(config)).update(`${tenantId}\u0000${code}`).digest('hex');

export async function findUserByLogin(
  db: Database,
  tenantId: string,
  login: string,
): Promise<UserRow | undefined> {
  const [row] = await db
    .select()
    .from(lendingUsers)
    .where(and(eq(lendingUsers.tenantId, tenantId), eq(lendingUsers.login, normalizeLogin(login))))
    .limit(1);
  return row;
}

export async function passwordHashOf(password: string): Promise<string> {
  return hashPassword(password);
}

export interface IssuedUserToken {
  token: string;
  expiresAt: Date;
}

export async function issueUserToken(
  db: Database,
  user: { tenantId: string; userId: string },
  ttlMs: number,
): Promise<IssuedUserToken> {
  const token = `lut_${randomBytes(32).toString('base64url')}`;
  const expiresAt = new Date(Date.now() + ttlMs);
  await db
    .insert(lendingUserTokens)
    .values({ digest: digestOf(token), tenantId: user.tenantId, userId: user.userId, expiresAt });
  return { token, expiresAt };
}

/**
 * Checks a login and password in a tenant: a new token, or undefined for an unknown login, a wrong
 * password and a user without a password alike (the same answer, and the same scrypt work).
 */
export async function logInUser(
  db: Database,
  tenantId: string,
  credentials: { login: string; password: string },
  ttlMs: number,
): Promise<(IssuedUserToken & { user: LendingUser }) | undefined> {
  const row = await findUserByLogin(db, tenantId, credentials.login);
  const valid = await verifyPassword(credentials.password, row?.passwordHash ?? (await decoyPasswordHash()));
  if (!row?.passwordHash || !valid) return undefined;
  return { ...(await issueUserToken(db, { tenantId, userId: row.id }, ttlMs)), user: userOf(row) };
}

const TOKEN_PATTERN = /^lut_[A-Za-z0-9_-]{43}$/;

const userTokens = credentialCache<{ user: LendingUser; expiresAt: Date }>({
  name: 'lending-user-tokens',
  tables: [lendingUserTokens, lendingUsers],
  expiresAt: (token) => token.expiresAt,
});

/** The user of a live token of `tenantId` (a token of another tenant, expired or revoked: undefined). */
export async function userOfToken(
  db: Database,
  tenantId: string,
  token: string,
): Promise<(LendingUser & { tokenDigest: string }) | undefined> {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  const tokenDigest = digestOf(token);
  const live = await userTokens.lookup(db, `${tenantId}:${tokenDigest}`, async () => {
    const [row] = await db
      .select({ user: lendingUsers, expiresAt: lendingUserTokens.expiresAt })
      .from(lendingUserTokens)
      .innerJoin(lendingUsers, eq(lendingUsers.id, lendingUserTokens.userId))
      .where(
        and(
          eq(lendingUserTokens.digest, tokenDigest),
          eq(lendingUserTokens.tenantId, tenantId),
          eq(lendingUsers.tenantId, tenantId),
          isNull(lendingUserTokens.revokedAt),
          gt(lendingUserTokens.expiresAt, new Date()),
        ),
      )
      .limit(1);
    return row ? { user: userOf(row.user), expiresAt: row.expiresAt } : undefined;
  });
  return live ? { ...live.user, tokenDigest } : undefined;
}

/** Revokes a user's live tokens, but the one with `keepDigest` (the caller's own, on a change). */
async function revokeTokens(
  db: Pick<Database, 'update'>,
  userId: string,
  keepDigest?: string,
): Promise<void> {
  await db
    .update(lendingUserTokens)
    .set({ revokedAt: new Date() })
    .where(
      and(
        eq(lendingUserTokens.userId, userId),
        isNull(lendingUserTokens.revokedAt),
        ...(keepDigest ? [ne(lendingUserTokens.digest, keepDigest)] : []),
      ),
    );
}

/**
 * User/ChangePassword: checks the current password, stores the new one and signs the user out
 * everywhere else (the token that asked stays valid). False when the current password is wrong.
 */
export async function changePassword(
  db: Database,
  user: { tenantId: string; userId: string; tokenDigest: string },
  passwords: { currentPassword: string; newPassword: string },
): Promise<boolean> {
  const [row] = await db
    .select({ passwordHash: lendingUsers.passwordHash })
    .from(lendingUsers)
    .where(and(eq(lendingUsers.id, user.userId), eq(lendingUsers.tenantId, user.tenantId)));
  const valid = await verifyPassword(
    passwords.currentPassword,
    row?.passwordHash ?? (await decoyPasswordHash()),
  );
  if (!row?.passwordHash || !valid) return false;
  await db
    .update(lendingUsers)
    .set({ passwordHash: await hashPassword(passwords.newPassword), passwordChangedAt: new Date() })
    .where(eq(lendingUsers.id, user.userId));
  await revokeTokens(db, user.userId, user.tokenDigest);
  forgetCredentials(db, lendingUserTokens);
  return true;
}

/** A one-time password reset code for a user (only its digest is kept). */
export async function issuePasswordResetCode(
  db: Database,
  config: KeyConfig,
  user: { tenantId: string; userId: string },
  ttlMs: number,
): Promise<{ code: string; expiresAt: Date }> {
  const code = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + ttlMs);
  await db.insert(lendingPasswordResets).values({
    digest: resetCodeDigest(config, user.tenantId, code),
    tenantId: user.tenantId,
    userId: user.userId,
    expiresAt,
  });
  return { code, expiresAt };
}

/**
 * User/ResetPassword: a live, unused code of the tenant sets the password, uses up every code of the
 * user, signs the user out everywhere and unlocks the login (login-throttle.ts). False for an unknown, used or expired code.
 */
export async function resetPassword(
  db: Database,
  config: KeyConfig,
  tenantId: string,
  input: { code: string; newPassword: string },
): Promise<boolean> {
  if (input.code.length > 200) return false;
  const passwordHash = await hashPassword(input.newPassword);
  const reset = await db.transaction(async (tx) => {
    const [used] = await tx
      .update(lendingPasswordResets)
      .set({ usedAt: new Date() })
      .where(
        and(
          eq(lendingPasswordResets.digest, resetCodeDigest(config, tenantId, input.code)),
          eq(lendingPasswordResets.tenantId, tenantId),
          isNull(lendingPasswordResets.usedAt),
          gt(lendingPasswordResets.expiresAt, new Date()),
        ),
      )
      .returning({ userId: lendingPasswordResets.userId });
    if (!used) return false;
    await tx
      .update(lendingPasswordResets)
      .set({ usedAt: new Date() })
      .where(and(eq(lendingPasswordResets.userId, used.userId), isNull(lendingPasswordResets.usedAt)));
    const [user] = await tx
      .update(lendingUsers)
      .set({ passwordHash, passwordChangedAt: new Date() })
      .where(eq(lendingUsers.id, used.userId))
      .returning({ login: lendingUsers.login });
    await revokeTokens(tx, used.userId);
    // A reset lifts the login's guessing block or lock.
    if (user) await forgetLoginFailures(tx, config, tenantId, user.login);
    return true;
  });
  if (reset) forgetCredentials(db, lendingUserTokens);
  return reset;
}
