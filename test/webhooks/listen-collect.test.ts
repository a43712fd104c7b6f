import { spawn } from 'node:child_process';
import { createHmac, createVerify, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_PARTIES_FILE, type SandboxParties } from '../../cmd/sandbox-parties.ts';
import { collectMerchants } from '../../db/schema/collect.ts';
import { collectNotifications } from '../../db/schema/collect-notifications.ts';
import type { MerchantNotification } from '../../domain/collect/processes.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * `npm run webhooks -- listen --service collect --forward-to <url>` (issue 25, item 4) as a developer runs
 * it after `npm start`: a child process borrows the sandbox merchant's notification URL through the
 * operator API, verifies a real PAID notification of the gateway (CHECKSUM and SIGNATURE), forwards it to a
 * local server, relays that server's answer to the gateway, and gives the URL back on Ctrl-C.
 */

const ADMIN_TOKEN = 'admin-token-for-listen-collect-tests-0123456789';
let platform: TestPlatform;
let dataDir: string;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { ADMIN_TOKEN } });
  dataDir = await mkdtemp(path.join(tmpdir(), 'webhooks-listen-collect-'));
});
afterAll(async () => {
  await platform?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const notifyUrlOf = async (min: string) =>
  (await platform.db.select().from(collectMerchants).where(eq(collectMerchants.min, min)))[0]?.notifyUrl;

const admin = (min: string, body: unknown, token = ADMIN_TOKEN) =>
  fetch(`${platform.apiUrl}/admin/collect/merchants/${min}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('PATCH /admin/collect/merchants/{min}', () => {
  it('answers the previous notification URL, refuses what the outbound policy refuses, 404 for no merchant', async () => {
    const merchant = await platform.createSandboxMerchant();
    const before = await notifyUrlOf(merchant.min);
    const changed = await admin(merchant.min, { notifyUrl: 'http://127.0.0.1:9/elsewhere' });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toEqual({
      min: merchant.min,
      notifyUrl: 'http://127.0.0.1:9/elsewhere',
      previousNotifyUrl: before,
    });
    // Outside the sandbox allow-list (loopback): refused, naming the field, and nothing changed.
    const refused = await admin(merchant.min, { notifyUrl: 'http://10.1.2.3/notify' });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('notifyUrl');
    expect(await notifyUrlOf(merchant.min)).toBe('http://127.0.0.1:9/elsewhere');
    expect((await admin(merchant.min, { notifyUrl: before })).status).toBe(200);
    expect((await admin('D000000000', { notifyUrl: null })).status).toBe(404);
    expect((await admin(merchant.min, { notifyUrl: null }, 'wrong-token')).status).toBe(401);
  });
});

describe('npm run webhooks -- listen --service collect', () => {
  it('forwards a verified PAID notification, relays the local answer, and restores the URL on SIGINT', async () => {
    const merchant = await platform.createSandboxMerchant();
    const originalUrl = await notifyUrlOf(merchant.min);
    // What `npm start` writes: the listener defaults to this merchant, its secret and the operator token.
    const parties: Pick<SandboxParties, 'apiUrl' | 'adminToken' | 'collect'> = {
      apiUrl: platform.apiUrl,
      adminToken: ADMIN_TOKEN,
      collect: {
        min: merchant.min,
        secret: merchant.secret,
        notifyUrl: originalUrl ?? '',
        sandboxMerchantUrl: platform.sandbox.merchant.url,
      },
    };
    await writeFile(path.join(dataDir, SANDBOX_PARTIES_FILE), JSON.stringify(parties));
    const invoice = String(Date.now() % 1_000_000_000);
    const target = await startReceiver(() => ({ status: 200, body: `INVOICE=${invoice}:STATUS=OK\n` }));
    const env: Record<string, string | undefined> = { ...process.env, DATA_DIR: dataDir };
    delete env.API_URL;
    delete env.ADMIN_TOKEN;
    delete env.COLLECT_SECRET;
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'cmd/webhooks-cli.ts',
        'listen',
        '--service',
        'collect',
        '--forward-to',
        target.url,
      ],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const output = { text: '' };
    const collectOutput = (chunk: Buffer) => {
      output.text += chunk.toString('utf8');
    };
    child.stdout.on('data', collectOutput);
    child.stderr.on('data', collectOutput);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const lineMatching = (pattern: RegExp, what: string) =>
      eventually(async () => output.text.match(pattern) ?? undefined, 30_000, what);
    try {
      const ready = await lineMatching(
        /Ready\. Merchant (D\d{9})'s notifications: (http:\/\/127\.0\.0\.1:\d+\/\S+)/,
        'ready',
      );
      expect(ready[1]).toBe(merchant.min);
      const listenUrl = ready[2] as string;
      expect(await notifyUrlOf(merchant.min)).toBe(listenUrl);

      // A forged packet (wrong CHECKSUM) is refused as ePay's sample receiver does, and not forwarded.
      const forgedEncoded = Buffer.from(`INVOICE=${invoice}:STATUS=PAID\n`).toString('base64');
      const forged = await fetch(listenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ENCODED: forgedEncoded, CHECKSUM: '0'.repeat(40), SIGNATURE: 'AAAA' }),
      });
      expect(await forged.text()).toBe('ERR=Not valid CHECKSUM\n');
      await lineMatching(new RegExp(`INVOICE=${invoice} {2}PAID {2}rejected: CHECKSUM`), 'the rejection');
      // The right CHECKSUM but a SIGNATURE not made with the gateway's key: refused too.
      const unsigned = await fetch(listenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          ENCODED: forgedEncoded,
          CHECKSUM: createHmac('sha1', merchant.secret).update(forgedEncoded).digest('hex'),
          SIGNATURE: Buffer.alloc(256, 1).toString('base64'),
        }),
      });
      expect(await unsigned.text()).toBe('ERR=Not valid SIGNATURE\n');
      await lineMatching(
        new RegExp(`INVOICE=${invoice} {2}PAID {2}rejected: SIGNATURE`),
        'the second rejection',
      );
      expect(target.requests).toHaveLength(0);

      // A real PAID notification of the gateway, queued as an obligation workflow queues it.
      const notification: MerchantNotification = {
        merchantMin: merchant.min,
        invoice,
        idn: `1000${invoice}`.slice(-10),
        status: 'PAID',
        payTime: '20261127120000',
        stan: '123456',
        bcode: 'A1B2C3',
      };
      await platform.client.workflow.execute('sendMerchantNotification', {
        workflowId: `test-listen-collect-${randomUUID()}`,
        taskQueue: platform.config.TEMPORAL_TASK_QUEUE,
        args: [notification],
      });
      const forwarded = await eventually(
        async () => target.requests[0],
        30_000,
        'the forwarded notification',
      );
      expect(forwarded.headers['content-type']).toBe('application/x-www-form-urlencoded');
      const form = new URLSearchParams(forwarded.body);
      const encoded = form.get('ENCODED') ?? '';
      expect(Buffer.from(encoded, 'base64').toString('utf8')).toBe(
        `INVOICE=${invoice}:STATUS=PAID:PAY_TIME=20261127120000:STAN=123456:BCODE=A1B2C3\n`,
      );
      // The exact bytes the gateway signed: verifiable by the local app with the secret and the gateway's key.
      expect(form.get('CHECKSUM')).toBe(createHmac('sha1', merchant.secret).update(encoded).digest('hex'));
      const publicKey = await (await fetch(`${platform.collectUrl}/.well-known/notification-key.pem`)).text();
      expect(
        createVerify('RSA-SHA256')
          .update(encoded)
          .verify(publicKey, form.get('SIGNATURE') ?? '', 'base64'),
      ).toBe(true);
      await lineMatching(
        new RegExp(`\\S+Z {2}INVOICE=${invoice} {2}PAID {2}→ 200 OK`),
        'the notification line',
      );

      // The gateway recorded the local app's answer: delivered.
      const delivered = await eventually(
        async () => {
          const [row] = await platform.db
            .select()
            .from(collectNotifications)
            .where(
              and(
                eq(collectNotifications.merchantMin, merchant.min),
                eq(collectNotifications.invoice, invoice),
              ),
            );
          return row?.delivery === 'delivered' ? row : undefined;
        },
        30_000,
        'the notification delivered',
      );
      expect(delivered.status).toBe('PAID');
      expect(target.requests).toHaveLength(1);

      // Ctrl-C: the merchant's notification URL is the one it had before the session.
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(output.text).toContain(
        `SIGINT: restored merchant ${merchant.min}'s notification URL: ${originalUrl}`,
      );
      expect(await notifyUrlOf(merchant.min)).toBe(originalUrl);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await target.stop();
    }
  }, 90_000);
});
