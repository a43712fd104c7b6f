import { z } from 'zod';
import { duration, optionalUrl } from '../config-fields.ts';

/** Configuration of the lending platform (docs/lending.md; decision 0037 for users and keys). */
export const lendingConfig = z.object({
  /**
   * Users (decision 0037): LENDING_USER_TOKEN_TTL is the lifetime of a `lender_UserAuthToken` from
   * Customer/Register or User/Login; LENDING_PASSWORD_RESET_TTL that of a reset code e-mailed by
   * User/RequestPasswordReset (one use).
   */
  LENDING_USER_TOKEN_TTL: duration('12h'),
  LENDING_PASSWORD_RESET_TTL: duration('1h'),
  /**
   * User/Login's per-account guessing limits (domain/lending/login-throttle.ts, docs/security.md): the
   * first LENDING_LOGIN_FREE_FAILURES failures of a login cost nothing; each further one blocks it for
   * LENDING_LOGIN_BACKOFF, doubled per failure up to LENDING_LOGIN_BACKOFF_MAX (429 `login_throttled`
   * with Retry-After); the LENDING_LOGIN_LOCK_AFTER-th failure locks it (423 `login_locked`) until a
   * password reset or `npm run admin -- lending:unlock-login`. Failures older than
   * LENDING_LOGIN_FAILURE_WINDOW are forgotten.
   */
  LENDING_LOGIN_FREE_FAILURES: z.coerce.number().int().min(0).max(100).default(3),
  LENDING_LOGIN_BACKOFF: duration('1s'),
  LENDING_LOGIN_BACKOFF_MAX: duration('15m'),
  LENDING_LOGIN_LOCK_AFTER: z.coerce.number().int().min(1).max(1000).default(10),
  LENDING_LOGIN_FAILURE_WINDOW: duration('24h'),
  /**
   * E-mail to users (password reset links): every message is written to lending_email_outbox; with
   * LENDING_SMTP_URL (`smtp://user:pass@host:587`, `smtps://...`) it is also sent through that server,
   * from LENDING_MAIL_FROM.
   */
  LENDING_SMTP_URL: optionalUrl,
  LENDING_MAIL_FROM: z.string().min(3).default('Lending platform <no-reply@lending.invalid>'),
  /**
   * 64 hex characters: encrypts customers' national ids (ssn, driverLicenseId) at rest and keys the
   * digests they are searched by (credentials/lending/personal-data.ts). Unset outside production, a
   * fixed development key is derived; production refuses to start without it (lendingProductionKeys).
   */
  LENDING_DATA_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (a 256-bit key)')
    .optional(),
});

/** Keys sandbox mode derives for development but production must be given. */
export const lendingProductionKeys = ['LENDING_DATA_KEY'] as const;
