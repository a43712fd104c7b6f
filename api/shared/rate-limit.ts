import { createHash } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { Refusal } from '../../application/shared/refusal.ts';
import { type RateLimit, TokenBuckets } from '../../domain/rate-limit.ts';
import { callerAddress } from './caller-address.ts';

/**
 * Rate limiting per credential and per client address (token buckets, domain/rate-limit.ts), before
 * any credential is looked up or any body read: `429 rate_limited` with `Retry-After` (seconds).
 * The buckets live in the memory of each API process, so N replicas allow N times the limits.
 * The credential is the one presented, valid or not (a stream of wrong tokens is limited too);
 * it is kept only as a SHA-256 digest. The client address is the caller's (api/shared/caller-address.ts:
 * behind a proxy listed in TRUSTED_PROXIES, the client it forwards for). `/health` is not limited.
 */
export interface RateLimits {
  perCredential: RateLimit | undefined;
  perAddress: RateLimit | undefined;
}

const CREDENTIAL_HEADERS = [
  'authorization',
  'x-admin-hash',
  'x-agent-hash',
  'x-user-hash',
  'x-public-hash',
  'lender_userauthtoken',
  'lender_apikey',
];

/** The MIN of an ePay packet in the query (the merchant is the credential of the ENCODED endpoints). */
function merchantOf(encoded: string | undefined): string | undefined {
  if (!encoded) return undefined;
  try {
    const text = Buffer.from(encoded.replaceAll(' ', '+'), 'base64').toString('latin1');
    return /^\s*MIN\s*=\s*(\S+)/im.exec(text)?.[1];
  } catch {
    return undefined;
  }
}

function presentedCredential(c: Context): string | undefined {
  for (const name of CREDENTIAL_HEADERS) {
    const value = c.req.header(name);
    if (value) return `${name}:${value}`;
  }
  const at = c.req.query('at');
  if (at) return `at:${at}`;
  const appId = c.req.query('APPID');
  if (appId) return `app:${appId}`;
  const min = merchantOf(c.req.query('ENCODED') ?? c.req.query('encoded'));
  return min ? `min:${min}` : undefined;
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url');

export function rateLimit(limits: RateLimits, now: () => number = Date.now): MiddlewareHandler {
  const byCredential = limits.perCredential && new TokenBuckets(limits.perCredential);
  const byAddress = limits.perAddress && new TokenBuckets(limits.perAddress);
  if (!byCredential && !byAddress) return async (_c, next) => next();
  return async (c, next) => {
    if (c.req.path === '/health') return next();
    const at = now();
    const address = byAddress?.take(callerAddress(c) ?? 'unknown', at);
    const credential = byCredential && presentedCredential(c);
    const result =
      address && !address.allowed
        ? address
        : credential
          ? byCredential?.take(digest(credential), at)
          : undefined;
    if (result && !result.allowed) {
      const seconds = Math.max(1, Math.ceil(result.retryAfterMs / 1000));
      c.header('retry-after', String(seconds));
      const which = result === address ? 'this client address' : 'this credential';
      return c.json(
        new Refusal(429, 'rate_limited', `Too many requests for ${which}; retry after ${seconds} s`).body(),
        429,
      );
    }
    return next();
  };
}
