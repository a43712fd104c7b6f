import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApi, serveApi } from '../../cmd/runtime.ts';
import { issueApiKey, revokeApiKey } from '../../credentials/lending/api-keys.ts';
import { createLendingTenant } from '../../credentials/lending/tenants.ts';
import { revokeAccessToken } from '../../credentials/messaging/access-tokens.ts';
import { openDatabase } from '../../db/client.ts';
import { createLogger } from '../../platform/logger.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * Credentials are cached in each API process and a revocation reaches every process at once
 * (decision 0065). Two APIs on their own connection pools stand for two processes: each has its own
 * cache and its own LISTEN connection, as separate processes would.
 */
describe('credential cache', () => {
  let platform: TestPlatform;
  let second: RunningApi;
  let closeSecondDb: () => Promise<void>;

  beforeAll(async () => {
    platform = await startTestPlatform({ worker: 'none' });
    const database = await openDatabase({ url: platform.config.DATABASE_URL, poolSize: 2 });
    closeSecondDb = database.close;
    second = await serveApi({
      config: platform.config,
      db: database.db,
      client: platform.client,
      logger: createLogger('silent'),
    });
  });

  afterAll(async () => {
    await second?.stop();
    await closeSecondDb?.();
    await platform?.stop();
  });

  const listSms = (apiUrl: string, token: string) => fetch(`${apiUrl}/messaging/sms?at=${token}`);

  /** The first lookup in a process starts its LISTEN; answers are cached only once it listens. */
  async function warm(apiUrl: string, token: string) {
    for (let i = 0; i < 5; i += 1) expect((await listSms(apiUrl, token)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await listSms(apiUrl, token)).status).toBe(200);
  }

  async function millisecondsUntil(status: number, request: () => Promise<Response>, limitMs = 3_000) {
    const started = performance.now();
    while (performance.now() - started < limitMs) {
      if ((await request()).status === status) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`still not ${status} after ${limitMs} ms`);
  }

  it('a messaging token revoked through one API is refused by the other within moments', async () => {
    const account = await platform.issueToken('Revoked elsewhere');
    await warm(platform.apiUrl, account.token);
    await warm(second.url, account.token);

    expect(await revokeAccessToken(platform.db, account.tokenId)).toBe(true);
    const elapsed = await millisecondsUntil(401, () => listSms(second.url, account.token));
    expect(elapsed).toBeLessThan(1_000);
    expect((await listSms(platform.apiUrl, account.token)).status).toBe(401);
  });

  it('answers from memory until the table changes: a change that notifies nobody is not seen', async () => {
    const account = await platform.issueToken('Changed silently');
    await warm(second.url, account.token);

    // An operator's statement with triggers disabled: the row says revoked, nobody is told.
    const raw = postgres(platform.config.DATABASE_URL as string, { max: 1, onnotice: () => {} });
    try {
      await raw.begin(async (tx) => {
        await tx`set local session_replication_role = replica`;
        await tx`update messaging_access_tokens set revoked_at = now() where id = ${account.tokenId}`;
      });
      // Served from the cache: the database would have said 401.
      expect((await listSms(second.url, account.token)).status).toBe(200);

      await raw`select pg_notify('platform_credentials_changed', 'messaging_access_tokens')`;
      expect(await millisecondsUntil(401, () => listSms(second.url, account.token))).toBeLessThan(1_000);
    } finally {
      await raw.end();
    }
  });

  it('a lending API key revoked by the operator is refused by every API', async () => {
    const tenant = await createLendingTenant(platform.db, { name: 'Cache tenant' });
    const key = await issueApiKey(platform.db, {
      tenantId: tenant.tenantId,
      permissions: ['front_office'],
      label: 'cache test',
    });
    const reasons = (apiUrl: string) =>
      fetch(`${apiUrl}/lending/PublicApi/v7-12/Dictionary/CancellationReasons`, {
        headers: { lender_ApiKey: key.apiKey },
      });
    for (const apiUrl of [platform.apiUrl, second.url]) {
      for (let i = 0; i < 3; i += 1) expect((await reasons(apiUrl)).status).toBe(200);
    }

    expect(await revokeApiKey(platform.db, key.keyId)).toBe(true);
    expect(await millisecondsUntil(401, () => reasons(second.url))).toBeLessThan(1_000);
    expect(await millisecondsUntil(401, () => reasons(platform.apiUrl))).toBeLessThan(1_000);
  });
});
