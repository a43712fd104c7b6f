import { createHmac, createVerify, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantNotification } from '../../domain/collect/processes.ts';
import { merchantNotificationsWorkflowId } from '../../domain/collect/processes.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/** The configured retry delays of this file (first attempt immediate). */
const SCHEDULE_MS = [300, 600, 900];

interface NotificationView {
  invoice: string;
  status: string;
  delivery: string;
  attemptCount: number;
  attempts: {
    attempt: number;
    attemptedAt: string;
    batchId: string;
    batchSize: number;
    httpStatus: number | null;
    reply: string | null;
    error: string | null;
  }[];
}

describe('merchant notifications', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform({
      env: {
        COLLECT_NOTIFY_RETRY_SCHEDULE: SCHEDULE_MS.map((ms) => `${ms}ms`).join(','),
        COLLECT_NOTIFY_BATCH_WINDOW: '400ms',
      },
    });
  });
  afterEach(async () => {
    await expectLedgerBalanced(platform.db);
  });
  afterAll(async () => {
    await platform?.stop();
  });

  /** Queues a notification the way obligation workflows do (notifyMerchant from workflow code). */
  const notify = (notification: MerchantNotification) =>
    platform.client.workflow.execute('sendMerchantNotification', {
      workflowId: `test-notify-${randomUUID()}`,
      taskQueue: platform.config.TEMPORAL_TASK_QUEUE,
      args: [notification],
    });

  const paid = (merchantMin: string, invoice: string): MerchantNotification => ({
    merchantMin,
    invoice,
    idn: `10000${invoice}`.slice(-10),
    status: 'PAID',
    payTime: '20260501123456',
    stan: '123456',
    bcode: 'A1B2C3',
  });

  /** GET /collect/notifications authenticated as the merchant (ENCODED + CHECKSUM). */
  async function read(merchant: { min: string; secret: string }, invoice: string, secret = merchant.secret) {
    const encoded = Buffer.from(`MIN=${merchant.min}\nINVOICE=${invoice}`).toString('base64');
    const checksum = createHmac('sha1', secret).update(encoded).digest('hex');
    const response = await fetch(
      `${platform.collectUrl}/notifications?${new URLSearchParams({ ENCODED: encoded, CHECKSUM: checksum })}`,
    );
    const text = await response.text();
    return {
      status: response.status,
      text,
      notifications: response.ok ? (JSON.parse(text).notifications as NotificationView[]) : [],
    };
  }

  const settled = (merchant: { min: string; secret: string }, invoice: string) =>
    eventually(
      async () => {
        const [notification] = (await read(merchant, invoice)).notifications;
        return notification && notification.delivery !== 'pending' ? notification : undefined;
      },
      20_000,
      `notification of ${invoice} settled`,
    );

  /** The merchant's delivery workflow ends when nothing is pending: no attempt can follow. */
  const deliveryEnded = (min: string) =>
    platform.client.workflow.getHandle(merchantNotificationsWorkflowId(min)).result();

  const postsOf = (min: string, invoice?: string) =>
    platform.sandbox.merchant.notifications.filter(
      (post) => post.min === min && (!invoice || post.lines.some((line) => line.invoice === invoice)),
    );

  it('merchant answers ERR twice, then OK: exactly three attempts and one delivered notification', async () => {
    const merchant = await platform.createSandboxMerchant();
    platform.sandbox.merchant.scriptNotification(merchant.min, '1001', ['ERR', 'ERR', 'OK']);
    await notify(paid(merchant.min, '1001'));

    const notification = await settled(merchant, '1001');
    await deliveryEnded(merchant.min);
    expect(notification).toMatchObject({
      invoice: '1001',
      status: 'PAID',
      delivery: 'delivered',
      attemptCount: 3,
    });
    expect(
      notification.attempts.map((attempt) => [attempt.attempt, attempt.httpStatus, attempt.reply]),
    ).toEqual([
      [1, 200, 'ERR'],
      [2, 200, 'ERR'],
      [3, 200, 'OK'],
    ]);
    expect(notification.attempts[0]!.error).toBe('merchant answered ERR');
    expect(postsOf(merchant.min)).toHaveLength(3);
    expect((await read(merchant, '1001')).notifications).toHaveLength(1);
  });

  it('signs every notification: CHECKSUM and SIGNATURE verify at the merchant and independently', async () => {
    const merchant = await platform.createSandboxMerchant();
    await notify(paid(merchant.min, '2001'));
    await settled(merchant, '2001');

    const [post] = postsOf(merchant.min);
    expect(post).toMatchObject({ checksumValid: true, signatureValid: true, httpStatus: 200 });
    expect(Buffer.from(post!.encoded, 'base64').toString('utf8')).toBe(
      'INVOICE=2001:STATUS=PAID:PAY_TIME=20260501123456:STAN=123456:BCODE=A1B2C3\n',
    );
    // Verified here with Node's crypto, independently of the gateway and the sandbox merchant.
    expect(post!.checksum).toBe(createHmac('sha1', merchant.secret).update(post!.encoded).digest('hex'));
    const keyResponse = await fetch(`${platform.collectUrl}/.well-known/notification-key.pem`);
    expect(keyResponse.status).toBe(200);
    expect(keyResponse.headers.get('content-type')).toBe('application/x-pem-file');
    const publicKey = await keyResponse.text();
    expect(publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(
      createVerify('RSA-SHA256').update(post!.encoded).verify(publicKey, post!.signature, 'base64'),
    ).toBe(true);
    const tampered = Buffer.from('INVOICE=2001:STATUS=DENIED\n').toString('base64');
    expect(createVerify('RSA-SHA256').update(tampered).verify(publicKey, post!.signature, 'base64')).toBe(
      false,
    );
  });

  it('shows at the sandbox merchant what it received and whether CHECKSUM and SIGNATURE verified', async () => {
    const merchant = await platform.createSandboxMerchant();
    await notify(paid(merchant.min, '2101'));
    await settled(merchant, '2101');

    const response = await fetch(
      `${platform.sandbox.merchant.url}/${merchant.min}/notifications?invoice=2101`,
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      min: merchant.min,
      notifications: [
        {
          receivedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
          checksumValid: true,
          signatureValid: true,
          lines: [
            { invoice: '2101', status: 'PAID', payTime: '20260501123456', stan: '123456', bcode: 'A1B2C3' },
          ],
          httpStatus: 200,
          reply: 'INVOICE=2101:STATUS=OK\n',
        },
      ],
    });
    const other = await fetch(`${platform.sandbox.merchant.url}/${merchant.min}/notifications?invoice=9999`);
    expect(((await other.json()) as { notifications: unknown[] }).notifications).toEqual([]);
    expect((await fetch(`${platform.sandbox.merchant.url}/D000000000/notifications`)).status).toBe(404);
  });

  it('runs the merchant delivery workflow on the delivery task queue (decision 0024)', async () => {
    const merchant = await platform.createSandboxMerchant();
    await notify(paid(merchant.min, '2201'));
    await settled(merchant, '2201');
    const described = await platform.client.workflow
      .getHandle(merchantNotificationsWorkflowId(merchant.min))
      .describe();
    expect(described.taskQueue).toBe(`${platform.config.TEMPORAL_TASK_QUEUE}-delivery`);
  });

  it('NO ends delivery at once: the invoice is unknown to the merchant', async () => {
    const merchant = await platform.createSandboxMerchant();
    platform.sandbox.merchant.scriptNotification(merchant.min, '3001', ['NO']);
    await notify({ merchantMin: merchant.min, invoice: '3001', idn: '3000003001', status: 'EXPIRED' });

    const notification = await settled(merchant, '3001');
    await deliveryEnded(merchant.min);
    expect(notification).toMatchObject({ status: 'EXPIRED', delivery: 'unknown', attemptCount: 1 });
    expect(notification.attempts.map((attempt) => attempt.reply)).toEqual(['NO']);
    expect(Buffer.from(postsOf(merchant.min)[0]!.encoded, 'base64').toString()).toBe(
      'INVOICE=3001:STATUS=EXPIRED\n',
    );
  });

  it('retries a down merchant on the configured schedule, then delivers', async () => {
    const merchant = await platform.createSandboxMerchant();
    platform.sandbox.merchant.goDown(merchant.min, [503, 503, 503]);
    await notify(paid(merchant.min, '4001'));

    const notification = await settled(merchant, '4001');
    expect(notification).toMatchObject({ delivery: 'delivered', attemptCount: 4 });
    expect(
      notification.attempts.map((attempt) => [attempt.httpStatus, attempt.reply, attempt.error]),
    ).toEqual([
      [503, null, 'HTTP 503'],
      [503, null, 'HTTP 503'],
      [503, null, 'HTTP 503'],
      [200, 'OK', null],
    ]);
    const times = notification.attempts.map((attempt) => Date.parse(attempt.attemptedAt));
    const gaps = times.slice(1).map((time, index) => time - times[index]!);
    gaps.forEach((gap, index) => {
      expect(gap).toBeGreaterThanOrEqual(SCHEDULE_MS[index]!);
      expect(gap).toBeLessThan(SCHEDULE_MS[index]! + 2_000);
    });
  });

  it('gives up when the schedule runs out: failed after the last attempt', async () => {
    const merchant = await platform.createSandboxMerchant();
    platform.sandbox.merchant.goDown(merchant.min, [500, 500, 500, 500, 500, 500]);
    await notify(paid(merchant.min, '5001'));

    const notification = await settled(merchant, '5001');
    await deliveryEnded(merchant.min);
    expect(notification).toMatchObject({ delivery: 'failed', attemptCount: SCHEDULE_MS.length + 1 });
    expect(postsOf(merchant.min)).toHaveLength(SCHEDULE_MS.length + 1);
  });

  it('batches pending notifications of one merchant into one POST, with an outcome per invoice', async () => {
    const merchant = await platform.createSandboxMerchant();
    platform.sandbox.merchant.scriptNotification(merchant.min, '6002', ['ERR', 'OK']);
    platform.sandbox.merchant.scriptNotification(merchant.min, '6003', ['OMIT', 'OK']);
    await Promise.all(['6001', '6002', '6003'].map((invoice) => notify(paid(merchant.min, invoice))));

    const results = await Promise.all(['6001', '6002', '6003'].map((invoice) => settled(merchant, invoice)));
    await deliveryEnded(merchant.min);
    const posts = postsOf(merchant.min);
    expect(posts.map((post) => post.lines.map((line) => line.invoice).sort())).toEqual([
      ['6001', '6002', '6003'],
      ['6002', '6003'],
    ]);
    expect(posts.every((post) => post.checksumValid && post.signatureValid)).toBe(true);
    expect(results.map((result) => [result.invoice, result.delivery, result.attemptCount])).toEqual([
      ['6001', 'delivered', 1],
      ['6002', 'delivered', 2],
      ['6003', 'delivered', 2],
    ]);
    const first = results.map((result) => result.attempts[0]!);
    expect(new Set(first.map((attempt) => attempt.batchId)).size).toBe(1);
    expect(first.map((attempt) => attempt.batchSize)).toEqual([3, 3, 3]);
    expect(first[2]).toMatchObject({ reply: null, error: 'the reply did not answer for invoice 6003' });
  });

  it('notifies a status change once: a repeated notifyMerchant adds nothing', async () => {
    const merchant = await platform.createSandboxMerchant();
    await notify(paid(merchant.min, '7001'));
    await settled(merchant, '7001');
    await deliveryEnded(merchant.min);
    await notify(paid(merchant.min, '7001'));

    expect((await read(merchant, '7001')).notifications).toHaveLength(1);
    expect(postsOf(merchant.min)).toHaveLength(1);
  });

  it('accepts the short `<invoice>=<STATUS>` reply form', async () => {
    const merchant = await platform.createSandboxMerchant();
    platform.sandbox.merchant.useShortReplies(merchant.min);
    await notify(paid(merchant.min, '8001'));

    expect(await settled(merchant, '8001')).toMatchObject({ delivery: 'delivered', attemptCount: 1 });
    expect(postsOf(merchant.min)[0]!.reply).toBe('8001=OK\n');
  });

  it('records a notification of a merchant without a notification URL as no_url, sending nothing', async () => {
    const merchant = await platform.createMerchant({ name: 'No URL Ltd' });
    await notify(paid(merchant.min, '9001'));

    const [notification] = (await read(merchant, '9001')).notifications;
    expect(notification).toMatchObject({ delivery: 'no_url', attemptCount: 0, attempts: [] });
  });

  it('end to end: an office bill registered and paid through the endpoints notifies the merchant', async () => {
    const merchant = await platform.createSandboxMerchant();
    const packet = `MIN=${merchant.min}\nINVOICE=77001\nAMOUNT=22.80\nDESCR=Order 77001\nENCODING=utf-8`;
    const encoded = Buffer.from(packet).toString('base64');
    const checksum = createHmac('sha1', merchant.secret).update(encoded).digest('hex');
    const registered = await fetch(
      `${platform.collectUrl}/office/reg_bill.cgi?${new URLSearchParams({ ENCODED: encoded, CHECKSUM: checksum })}`,
    );
    const registration = await registered.text();
    expect(registered.status).toBe(200);
    const idn = /^IDN=(\d{10})$/m.exec(registration)?.[1];
    expect(idn).toBeDefined();

    const paidResponse = await fetch(`${platform.collectUrl}/office/pay_bill.cgi?ACTION=PAY&IDN=${idn}`);
    expect(paidResponse.status).toBe(200);
    const notification = await settled(merchant, '77001');
    expect(notification).toMatchObject({ idn, status: 'PAID', delivery: 'delivered', attemptCount: 1 });

    const [post] = postsOf(merchant.min, '77001');
    expect(post).toMatchObject({ checksumValid: true, signatureValid: true });
    expect(Buffer.from(post!.encoded, 'base64').toString()).toMatch(
      /^INVOICE=77001:STATUS=PAID:PAY_TIME=\d{14}:STAN=\d{6}:BCODE=\w{6}\n$/,
    );
  });

  describe('reading notifications', () => {
    it('refuses a wrong CHECKSUM, an unknown merchant and a missing ENCODED with distinct errors', async () => {
      const merchant = await platform.createSandboxMerchant();
      const wrong = await read(merchant, '1', 'not-the-secret');
      expect(wrong.status).toBe(401);
      expect(wrong.text).toMatch(/^ERR=BAD_CHECKSUM\n/);

      const unknown = await read({ min: 'D000000009', secret: 'x' }, '1');
      expect(unknown.status).toBe(401);
      expect(unknown.text).toMatch(/^ERR=UNKNOWN_MERCHANT\n/);

      const missing = await fetch(`${platform.collectUrl}/notifications?CHECKSUM=ab`);
      expect(missing.status).toBe(400);
      expect(await missing.text()).toBe('ERR=MISSING_FIELD\nERRMSG=ENCODED is required\nFIELD=ENCODED');
    });

    it("shows a merchant only its own notifications: another merchant's invoice is an empty list", async () => {
      const owner = await platform.createSandboxMerchant();
      const other = await platform.createSandboxMerchant();
      await notify(paid(owner.min, '9101'));
      await settled(owner, '9101');

      const seen = await read(other, '9101');
      expect(seen.status).toBe(200);
      expect(seen.notifications).toEqual([]);
    });
  });
});
