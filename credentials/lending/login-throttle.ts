import { createHash, createHmac } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { lendingLoginThrottles } from '../../db/schema/lending.ts';
import { normalizeLogin } from '../../domain/lending/customers.ts';
import {
  decideLoginAttempt,
  type LoginAttemptDecision,
  type LoginThrottleRules,
} from '../../domain/lending/login-throttle.ts';
import type { Config } from '../../platform/config.ts';
import { lendingDataKey } from './personal-data.ts';

/**
 * The stored side of User/Login's guessing limits (domain/lending/login-throttle.ts): one row per login
 * of a tenant, named by a keyed digest (HMAC-SHA-256 with a key derived from LENDING_DATA_KEY) of the
 * tenant and the normalised login, so unknown logins are counted like known ones and the table names
 * nobody.
 */
export type LoginThrottleConfig = Pick<
  Config,
  | 'LENDING_DATA_KEY'
  | 'PLATFORM_MODE'
  | 'LENDING_LOGIN_FREE_FAILURES'
  | 'LENDING_LOGIN_BACKOFF'
  | 'LENDING_LOGIN_BACKOFF_MAX'
  | 'LENDING_LOGIN_LOCK_AFTER'
  | 'LENDING_LOGIN_FAILURE_WINDOW'
>;

const keyOf = (config: Pick<Config, 'LENDING_DATA_KEY' | 'PLATFORM_MODE'>) =>
  createHash('sha256').update('lending-login-throttle:').update(lendingDataKey(config)).digest();

/** The row's key of a login of a tenant. */
export const loginThrottleKey = (
  config: Pick<Config, 'LENDING_DATA_KEY' | 'PLATFORM_MODE'>,
  tenantId: string,
  login: string,
) =>
  createHmac('sha256', keyOf(config))
    .update(`${tenantId}\u0000${normalizeLogin(login)}`)
    .digest('hex');

const rulesOf = (config: LoginThrottleConfig): LoginThrottleRules => ({
  freeFailures: config.LENDING_LOGIN_FREE_FAILURES,
  backoffMs: config.LENDING_LOGIN_BACKOFF,
  backoffMaxMs: config.LENDING_LOGIN_BACKOFF_MAX,
  lockAfter: config.LENDING_LOGIN_LOCK_AFTER,
  windowMs: config.LENDING_LOGIN_FAILURE_WINDOW,
});

/**
 * Counts a login attempt as a failure before its password is checked (the row locked meanwhile, so
 * parallel attempts are counted one after the other); a success then forgets the failures
 * (forgetLoginFailures). Locked or throttled: nothing is counted.
 */
export async function countLoginAttempt(
  db: Database,
  config: LoginThrottleConfig,
  tenantId: string,
  login: string,
  now = new Date(),
): Promise<LoginAttemptDecision> {
  const key = loginThrottleKey(config, tenantId, login);
  return db.transaction(async (tx) => {
    await tx.insert(lendingLoginThrottles).values({ key, tenantId }).onConflictDoNothing();
    const [row] = await tx
      .select()
      .from(lendingLoginThrottles)
      .where(eq(lendingLoginThrottles.key, key))
      .for('update');
    const decision = decideLoginAttempt(
      row ?? { failures: 0, blockedUntil: null, lockedAt: null, lastFailureAt: null },
      now,
      rulesOf(config),
    );
    if (decision.outcome === 'allowed') {
      await tx.update(lendingLoginThrottles).set(decision.counted).where(eq(lendingLoginThrottles.key, key));
    }
    return decision;
  });
}

/** Forgets a login's failures and lifts its block or lock (a successful login, a reset, an operator). */
export async function forgetLoginFailures(
  db: Pick<Database, 'delete'>,
  config: Pick<Config, 'LENDING_DATA_KEY' | 'PLATFORM_MODE'>,
  tenantId: string,
  login: string,
): Promise<boolean> {
  const removed = await db
    .delete(lendingLoginThrottles)
    .where(eq(lendingLoginThrottles.key, loginThrottleKey(config, tenantId, login)))
    .returning({ key: lendingLoginThrottles.key });
  return removed.length > 0;
}
