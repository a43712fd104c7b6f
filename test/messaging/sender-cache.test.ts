import { and, eq } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApi, serveApi } from '../../cmd/runtime.ts';
import { openDatabase } from '../../db/client.ts';
import { messagingSenderIds, messagingSenderNumbers } from '../../db/schema/messaging.ts';
import { createLogger } from '../../platform/logger.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * The accept path answers "may this account send from this sender?" from memory (decision 0073), and a
 * sender ID or number that stops being usable is refused at once by every API process, as a revoked
 * credential is (decision 0065). Two APIs on their own connection pools stand for two processes.
 */
describe('usable senders cached per process', () => {
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

  const send = (apiUrl: string, token: string, from: string) =>
    fetch(`${apiUrl}/messaging/sms?at=${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ to: '+359881234567', from, message: 'Cached sender' }),
    });

  /** The first lookups of a process start its LISTEN; answers are cached only once it listens. */
  async function warm(apiUrl: string, token: string, from: string) {
    for (let i = 0; i < 3; i += 1) expect((await send(apiUrl, token, from)).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await send(apiUrl, token, from)).status).toBe(202);
  }

  /** Sends until refused with `code`; answers how long that took. */
  async function millisecondsUntilRefused(request: () => Promise<Response>, code: string, limitMs = 3_000) {
    const started = performance.now();
    while (performance.now() - started < limitMs) {
      const response = await request();
      if (response.status === 422) {
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe(code);
        return performance.now() - started;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`still accepted after ${limitMs} ms`);
  }

  it('a sender ID rejected after its approval is refused by every API process within moments', async () => {
    const account = await platform.issueToken('Sender ID rejected elsewhere');
    await platform.grantSenders(account.accountId, { senderIds: ['CacheShop'] });
    await warm(platform.apiUrl, account.token, 'CacheShop');
    await warm(second.url, account.token, 'CacheShop');

    // The operator takes the approval back (no API does that yet: a statement, from the first process's pool).
    await platform.db
      .update(messagingSenderIds)
      .set({ status: 'rejected', decisionReason: 'revoked by the operator' })
      .where(
        and(
          eq(messagingSenderIds.accountId, account.accountId),
          eq(messagingSenderIds.senderId, 'CacheShop'),
        ),
      );
    const elapsed = await millisecondsUntilRefused(
      () => send(second.url, account.token, 'CacheShop'),
      'sender_id_not_approved',
    );
    expect(elapsed).toBeLessThan(1_000);
    expect(
      await millisecondsUntilRefused(
        () => send(platform.apiUrl, account.token, 'CacheShop'),
        'sender_id_not_approved',
      ),
    ).toBeLessThan(1_000);
  });

  it('a verified number removed from the account is refused by every API process within moments', async () => {
    const account = await platform.issueToken('Number revoked elsewhere');
    await platform.grantSenders(account.accountId, { numbers: ['+359888777001'] });
    await warm(platform.apiUrl, account.token, '+359888777001');
    await warm(second.url, account.token, '+359888777001');

    await platform.db
      .delete(messagingSenderNumbers)
      .where(eq(messagingSenderNumbers.accountId, account.accountId));
    for (const apiUrl of [second.url, platform.apiUrl]) {
      expect(
        await millisecondsUntilRefused(
          () => send(apiUrl, account.token, '+359888777001'),
          'number_not_verified',
        ),
      ).toBeLessThan(1_000);
    }
  });

  it('answers from memory until the table changes: a change that notifies nobody is not seen', async () => {
    const account = await platform.issueToken('Sender changed silently');
    await platform.grantSenders(account.accountId, { senderIds: ['Silent'] });
    await warm(second.url, account.token, 'Silent');

    // An operator's statement with triggers disabled: the row says rejected, nobody is told.
    const raw = postgres(platform.config.DATABASE_URL as string, { max: 1, onnotice: () => {} });
    try {
      await raw.begin(async (tx) => {
        await tx`set local session_replication_role = replica`;
        await tx`update messaging_sender_ids set status = 'rejected' where account_id = ${account.accountId}`;
      });
      // Served from the cache: the database would have refused it.
      expect((await send(second.url, account.token, 'Silent')).status).toBe(202);

      await raw`select pg_notify('platform_credentials_changed', 'messaging_sender_ids')`;
      expect(
        await millisecondsUntilRefused(
          () => send(second.url, account.token, 'Silent'),
          'sender_id_not_approved',
        ),
      ).toBeLessThan(1_000);
    } finally {
      await raw.end();
    }
  });

  it('an approval counts at once: a refusal is not remembered', async () => {
    const account = await platform.issueToken('Approved later');
    for (let i = 0; i < 3; i += 1)
      expect((await send(second.url, account.token, 'LateShop')).status).toBe(422);
    // The process listens by now (its first lookups started it): a refusal cached would be served now.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await send(second.url, account.token, 'LateShop')).status).toBe(422);
    await platform.grantSenders(account.accountId, { senderIds: ['LateShop'] });
    expect((await send(second.url, account.token, 'LateShop')).status).toBe(202);
  });
});
