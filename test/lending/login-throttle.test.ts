import { describe, expect, it } from 'vitest';
import {
  decideLoginAttempt,
  type LoginThrottleState,
  loginBackoffMs,
} from '../../domain/lending/login-throttle.ts';

/** User/Login's guessing limits as pure rules (domain/lending/login-throttle.ts); no clock is waited on. */
const rules = { freeFailures: 3, backoffMs: 1000, backoffMaxMs: 60_000, lockAfter: 10, windowMs: 86_400_000 };
const fresh: LoginThrottleState = { failures: 0, blockedUntil: null, lockedAt: null, lastFailureAt: null };
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

describe('login guessing limits', () => {
  it('waits nothing for the free failures, then doubles from the base up to the maximum', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 10, 50].map((failures) => loginBackoffMs(failures, rules))).toEqual([
      0, 0, 0, 1000, 2000, 4000, 8000, 60_000, 60_000,
    ]);
  });

  it('counts an attempt before the check, blocks while waiting, locks at the N-th failure', () => {
    let state = fresh;
    for (let failure = 1; failure <= 4; failure++) {
      const decision = decideLoginAttempt(state, at(failure * 100_000), rules);
      if (decision.outcome !== 'allowed') throw new Error(`attempt ${failure}: ${decision.outcome}`);
      state = decision.counted;
    }
    expect(state).toMatchObject({ failures: 4, blockedUntil: at(401_000), lockedAt: null });
    expect(decideLoginAttempt(state, at(400_500), rules)).toEqual({
      outcome: 'throttled',
      retryAfterMs: 500,
    });
    const ninth = { ...state, failures: 9, blockedUntil: null };
    const tenth = decideLoginAttempt(ninth, at(500_000), rules);
    expect(tenth).toMatchObject({ outcome: 'allowed', counted: { failures: 10, lockedAt: at(500_000) } });
    if (tenth.outcome !== 'allowed') return;
    expect(decideLoginAttempt(tenth.counted, at(10 * 86_400_000), rules)).toEqual({ outcome: 'locked' });
  });

  it('forgets failures older than the window', () => {
    const old = { failures: 8, blockedUntil: null, lockedAt: null, lastFailureAt: at(0) };
    expect(decideLoginAttempt(old, at(86_400_001), rules)).toMatchObject({
      outcome: 'allowed',
      counted: { failures: 1, blockedUntil: null },
    });
  });
});
