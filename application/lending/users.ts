import { countLoginAttempt, forgetLoginFailures } from '../../credentials/lending/login-throttle.ts';
import {
  changePassword,
  findUserByLogin,
  type IssuedUserToken,
  issuePasswordResetCode,
  logInUser,
  resetPassword,
} from '../../credentials/lending/users.ts';
import { normalizeLogin } from '../../domain/lending/customers.ts';
import type { LendingTenant, LendingUser } from '../../domain/lending/tenancy.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { readCustomer } from './customers.ts';
import { sendUserMail } from './mail-outbox.ts';
import { requireTenantSiteUrl } from './tenant-site.ts';

/** The lending users' sign-in and passwords (User/*, decision 0037). */

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * User/Login: a user token; 401 `invalid_credentials` for an unknown login or a wrong password alike
 * (the same scrypt work). Per-login guessing limits (domain/lending/login-throttle.ts), counted for
 * unknown logins alike: 429 `login_throttled` with Retry-After while the login is blocked, 423
 * `login_locked` once it is locked (until a password reset or an operator unlocks it).
 */
export async function logIn(
  { db, config }: Pick<UseCaseDeps, 'db' | 'config'>,
  { tenantId, ...credentials }: { tenantId: string; login: string; password: string },
): Promise<IssuedUserToken & { user: LendingUser }> {
  const attempt = await countLoginAttempt(db, config, tenantId, credentials.login);
  if (attempt.outcome === 'locked') {
    throw new Refusal(
      423,
      'login_locked',
      'Too many failed logins: this login is locked until its password is reset (User/RequestPasswordReset)',
    );
  }
  if (attempt.outcome === 'throttled') {
    const seconds = Math.max(1, Math.ceil(attempt.retryAfterMs / 1000));
    throw Refusal.tooManyRequests(
      'login_throttled',
      `Too many failed logins: try again in ${seconds} s`,
      attempt.retryAfterMs,
    );
  }
  const loggedIn = await logInUser(db, tenantId, credentials, config.LENDING_USER_TOKEN_TTL);
  if (!loggedIn) throw new Refusal(401, 'invalid_credentials', 'The login or the password is not valid');
  await forgetLoginFailures(db, config, tenantId, credentials.login);
  return loggedIn;
}

/** The operator lifts a login's block or lock (`npm run admin -- lending:unlock-login`, the admin API). */
export async function unlockLogin(
  { db, config }: Pick<UseCaseDeps, 'db' | 'config'>,
  { tenantId, login }: { tenantId: string; login: string },
): Promise<{ unlocked: boolean }> {
  return { unlocked: await forgetLoginFailures(db, config, tenantId, login) };
}

/** User/ChangePassword: the token presented (`tokenDigest`) stays signed in. */
export async function changeUserPassword(
  { db }: Pick<UseCaseDeps, 'db'>,
  {
    user,
    ...passwords
  }: {
    user: { tenantId: string; userId: string; login: string; tokenDigest: string };
    currentPassword: string;
    newPassword: string;
  },
): Promise<void> {
  if (normalizeLogin(passwords.newPassword) === user.login) {
    throw Refusal.field('newPassword', 'must not be the login');
  }
  if (!(await changePassword(db, user, passwords))) {
    throw new Refusal(400, 'wrong_password', 'The current password is not valid', [
      { field: 'currentPassword', message: 'does not match' },
    ]);
  }
}

/** User/ResetPassword with the one-time code of the e-mail. */
export async function resetUserPassword(
  { db, config }: Pick<UseCaseDeps, 'db' | 'config'>,
  { tenantId, ...input }: { tenantId: string; code: string; newPassword: string },
): Promise<void> {
  if (!(await resetPassword(db, config, tenantId, input))) {
    throw new Refusal(400, 'invalid_reset_code', 'The reset code is not valid, was used or has expired', [
      { field: 'code', message: 'not valid, used or expired' },
    ]);
  }
}

/**
 * User/RequestPasswordReset: e-mails the user a one-time reset link, `confirmationUrl` with
 * `code=<code>` added (the code alone when no URL is given). Nothing tells whether the login exists.
 * Where the tenant has site domains, the link must point at one of them (or a subdomain).
 */
export async function requestPasswordReset(
  deps: Pick<UseCaseDeps, 'db' | 'config' | 'logger'>,
  {
    tenant,
    ...input
  }: { tenant: Pick<LendingTenant, 'id' | 'name'>; login: string; confirmationUrl?: string | undefined },
): Promise<void> {
  const { db, config } = deps;
  const { login, confirmationUrl } = input;
  if (confirmationUrl) await requireTenantSiteUrl(db, config, tenant.id, 'confirmationUrl', confirmationUrl);
  const user = await findUserByLogin(db, tenant.id, login);
  const customer = user?.customerId
    ? await readCustomer({ db }, { tenantId: tenant.id, customerId: user.customerId })
    : undefined;
  const recipient = customer?.details.email ?? (user && EMAIL.test(user.login) ? user.login : undefined);
  if (!user || !recipient) return;
  const { code, expiresAt } = await issuePasswordResetCode(
    db,
    config,
    { tenantId: tenant.id, userId: user.id },
    config.LENDING_PASSWORD_RESET_TTL,
  );
  let link = code;
  if (confirmationUrl) {
    const url = new URL(confirmationUrl);
    url.searchParams.set('code', code);
    link = url.toString();
  }
  await sendUserMail(deps, {
    tenantId: tenant.id,
    userId: user.id,
    kind: 'password_reset',
    recipient,
    subject: `${tenant.name}: reset your password`,
    body:
      `Hello,\n\nsomeone asked to reset the password of your ${tenant.name} account (${user.login}).\n` +
      `${confirmationUrl ? 'Open this link' : 'Use this code'} to choose a new password (valid until ${expiresAt.toISOString()}, once):\n` +
      `${link}\n\nIf it was not you, ignore this message: your password stays as it is.\n`,
  });
}
