/**
 * Per-account guessing limits of User/Login (issue 20): the failures of one login of one tenant are
 * counted (known logins and unknown ones alike, so the limits tell nothing about which exist). The first
 * `freeFailures` cost nothing; each further one blocks the login for `backoffMs`, doubled per failure up
 * to `backoffMaxMs`; the `lockAfter`-th failure locks it until the password is reset or an operator
 * unlocks it. Failures older than `windowMs` are forgotten; a successful login forgets them all.
 * Every attempt is counted before the password is checked, so parallel guesses cannot slip past.
 */
export interface LoginThrottleRules {
  freeFailures: number;
  backoffMs: number;
  backoffMaxMs: number;
  lockAfter: number;
  windowMs: number;
}

export interface LoginThrottleState {
  failures: number;
  blockedUntil: Date | null;
  lockedAt: Date | null;
  lastFailureAt: Date | null;
}

export type LoginAttemptDecision =
  | { outcome: 'locked' }
  | { outcome: 'throttled'; retryAfterMs: number }
  /** The attempt may check the password; `counted` is the state should it fail (stored before the check). */
  | { outcome: 'allowed'; counted: LoginThrottleState };

/** The wait after the `failures`-th failure (0 while still free). */
export function loginBackoffMs(failures: number, rules: LoginThrottleRules): number {
  const beyond = failures - rules.freeFailures;
  if (beyond <= 0) return 0;
  return Math.min(rules.backoffMaxMs, rules.backoffMs * 2 ** Math.min(beyond - 1, 40));
}

export function decideLoginAttempt(
  state: LoginThrottleState,
  now: Date,
  rules: LoginThrottleRules,
): LoginAttemptDecision {
  if (state.lockedAt) return { outcome: 'locked' };
  if (state.blockedUntil && state.blockedUntil.getTime() > now.getTime()) {
    return { outcome: 'throttled', retryAfterMs: state.blockedUntil.getTime() - now.getTime() };
  }
  const forgotten = state.lastFailureAt && now.getTime() - state.lastFailureAt.getTime() > rules.windowMs;
  const failures = (forgotten ? 0 : state.failures) + 1;
  const wait = loginBackoffMs(failures, rules);
  return {
    outcome: 'allowed',
    counted: {
      failures,
      blockedUntil: wait > 0 ? new Date(now.getTime() + wait) : null,
      lockedAt: failures >= rules.lockAfter ? now : null,
      lastFailureAt: now,
    },
  };
}
