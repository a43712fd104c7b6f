import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRateLimit, TokenBuckets } from '../../domain/rate-limit.ts';
import { loadConfig } from '../../platform/config.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

describe('rate limits: configuration and buckets', () => {
  it('reads <n>/<duration>, and 0 or off as no limit', () => {
    expect(parseRateLimit('600/1m')).toEqual({ capacity: 600, perMs: 60_000 });
    expect(parseRateLimit('20/s')).toEqual({ capacity: 20, perMs: 1_000 });
    for (const off of ['0', 'off', 'OFF', '', '0/1m']) expect(parseRateLimit(off)).toBeUndefined();
    expect(() => parseRateLimit('fast')).toThrow(/not a rate limit/);
    const config = loadConfig({ RATE_LIMIT_PER_CREDENTIAL: 'off', RATE_LIMIT_PER_ADDRESS: '100/10s' });
    expect(config.RATE_LIMIT_PER_CREDENTIAL).toBeUndefined();
    expect(config.RATE_LIMIT_PER_ADDRESS).toEqual({ capacity: 100, perMs: 10_000 });
    expect(() => loadConfig({ RATE_LIMIT_PER_ADDRESS: 'lots' })).toThrow(/RATE_LIMIT_PER_ADDRESS/);
    // Generous by default: no test or benchmark comes near them.
    const defaults = loadConfig({});
    expect(defaults.RATE_LIMIT_PER_CREDENTIAL?.capacity).toBeGreaterThanOrEqual(10_000);
    expect(defaults.RATE_LIMIT_PER_ADDRESS?.capacity).toBeGreaterThanOrEqual(10_000);
  });

  it('refills a bucket over time and says when the next token is back', () => {
    const buckets = new TokenBuckets({ capacity: 2, perMs: 1_000 });
    expect(buckets.take('k', 0)).toEqual({ allowed: true });
    expect(buckets.take('k', 0)).toEqual({ allowed: true });
    expect(buckets.take('k', 0)).toEqual({ allowed: false, retryAfterMs: 500 });
    expect(buckets.take('other', 0)).toEqual({ allowed: true });
    expect(buckets.take('k', 500)).toEqual({ allowed: true });
    expect(buckets.take('k', 600)).toEqual({ allowed: false, retryAfterMs: 400 });
  });

  it('forgets refilled buckets when it holds many keys', () => {
    const buckets = new TokenBuckets({ capacity: 1, perMs: 1_000 }, 10);
    for (let i = 0; i < 20; i++) buckets.take(`k${i}`, i * 1_000);
    expect(buckets.size).toBeLessThanOrEqual(11);
  });
});

describe('rate limits on a platform with low limits', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({
      env: { RATE_LIMIT_PER_CREDENTIAL: '3/1m', RATE_LIMIT_PER_ADDRESS: '9/1m' },
    });
  });
  afterAll(async () => {
    await platform?.stop();
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${platform.apiUrl}${path}`, { headers });

  it('limits each credential on its own, then the client address, with 429 rate_limited and Retry-After', async () => {
    const other = await platform.issueToken();
    const rates = (token: string) => get(`/messaging/rates/?at=${token}&format=json`);
    for (let i = 0; i < 3; i++) expect((await rates(platform.token)).status).toBe(200);
    const limited = await rates(platform.token);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    // Another credential has its own bucket; a wrong one is limited like any other.
    for (let i = 0; i < 3; i++) expect((await rates(other.token)).status).toBe(200);
    // Eight requests from this address so far: these seven and, at start, the sandbox chat-app provider's
    // subscription check of the platform's webhook (GET /messaging/chatapp/webhook, also from loopback).
    // Health is never limited.
    expect((await get('/health')).status).toBe(200);
    expect((await get('/messaging/openapi.json')).status).toBe(200);
    const byAddress = await get('/collect/openapi.json');
    expect(byAddress.status).toBe(429);
    expect(byAddress.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await byAddress.json()) as { error: { message: string } }).error.message).toContain('address');
  });
});
