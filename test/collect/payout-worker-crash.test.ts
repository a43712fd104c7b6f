import { createHmac, createVerify } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { workerProcesses } from '../support/worker-process.ts';
import { historyOf, idleOnTimer } from '../support/workflow-history.ts';
import { expTimeIn, getText, newInvoice, signedPacket, type TextReply } from './epay-client.ts';
import { obligationRow, statusHistory as statusHistoryOf } from './read-model.ts';

/**
 * Durability of cash payouts against a real crash: the worker runs as its own OS process
 * (`cmd/worker-main.ts`, as `npm run worker` runs it) and is killed with SIGKILL while a payout
 * waits for its recipient (the `payout-<idn>` workflow sleeps on its expiry timer); a new process takes
 * over. The payout must end exactly once, PAID when collected or EXPIRED when not, and the merchant
 * must get exactly one notification of it.
 *
 * Each takeover costs about 10 s: the first workflow task after the crash goes to the dead worker's
 * sticky queue and moves to the shared task queue only when its schedule-to-start timeout (the SDK's
 * stickyQueueScheduleToStartTimeout, 10 s) passes, as in a real crash.
 */

/** Default payout expiry of this file (payouts ordered without EXP_TIME): long enough to kill the worker first. */
const PAYOUT_EXPIRY_MS = 6_000;
/** A duplicate notification or attempt would arrive within this (batch window 100 ms, retries 200 ms). */
const QUIET_MS = 1_500;

let platform: TestPlatform;
const workers = workerProcesses(() => platform.env);

beforeAll(async () => {
  platform = await startTestPlatform({
    worker: 'none',
    env: { COLLECT_PAYOUT_EXPIRY: `${PAYOUT_EXPIRY_MS}ms` },
  });
});
// Each test starts its own worker processes; none outlives it.
afterEach(async () => {
  await workers.killAll();
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await workers.killAll();
  await platform?.stop();
});

type Merchant = { min: string; secret: string };

const url = (route: string) => `${platform.collectUrl}${route}`;

/** GET /office/send.cgi as the merchant's ePay client sends it; answers the SYS_CODE (the IDN). */
async function orderPayout(merchant: Merchant, invoice: string, fields: Record<string, string> = {}) {
  const ordered = await getText(
    url('/office/send.cgi'),
    signedPacket(
      {
        MIN: merchant.min,
        INVOICE: invoice,
        AMOUNT: '150.00',
        RCPT_NAME: 'Ivan Petrov',
        RCPT_ID: '8001011234',
        ENCODING: 'utf-8',
        ...fields,
      },
      merchant.secret,
    ),
  );
  expect(ordered.status, ordered.body).toBe(200);
  expect(ordered.fields.STATUS).toBe('PENDING');
  const sysCode = ordered.fields.SYS_CODE ?? '';
  expect(sysCode).toMatch(/^\d{10}$/);
  return sysCode;
}

const collect = (sysCode: string) => getText(url('/office/pay_money_send.cgi'), { SYS_CODE: sysCode });

const readRow = (idn: string) => obligationRow(platform.db, idn);

const statusHistory = (idn: string) => statusHistoryOf(platform.db, idn);

const history = (workflowId: string) => historyOf(platform.client, workflowId);

/** The payout workflow has completed its first workflow task and sleeps on its expiry timer. */
const waitingForCollection = (sysCode: string) =>
  eventually(
    async () => {
      const events = await history(`payout-${sysCode}`);
      return idleOnTimer(events) ? true : undefined;
    },
    15_000,
    `payout-${sysCode} to wait on its timer`,
  );

/** POSTs the sandbox merchant received for this merchant (each verified there: CHECKSUM and SIGNATURE). */
const received = (merchant: Merchant) =>
  platform.sandbox.merchant.notifications.filter((notification) => notification.min === merchant.min);

interface NotificationView {
  status: string;
  stan: string | null;
  bcode: string | null;
  delivery: string;
  attemptCount: number;
  attempts: { attempt: number; httpStatus: number | null; reply: string | null }[];
}

/** GET /collect/notifications as the merchant: the gateway's record of the invoice's notifications. */
async function notificationsOf(merchant: Merchant, invoice: string): Promise<NotificationView[]> {
  const encoded = Buffer.from(`MIN=${merchant.min}\nINVOICE=${invoice}`).toString('base64');
  const checksum = createHmac('sha1', merchant.secret).update(encoded).digest('hex');
  const response = await fetch(
    `${url('/notifications')}?${new URLSearchParams({ ENCODED: encoded, CHECKSUM: checksum })}`,
  );
  expect(response.status).toBe(200);
  return ((await response.json()) as { notifications: NotificationView[] }).notifications;
}

const delivered = (merchant: Merchant, invoice: string) =>
  eventually(
    async () => {
      const [notification] = await notificationsOf(merchant, invoice);
      return notification?.delivery === 'delivered' ? notification : undefined;
    },
    20_000,
    `the notification of invoice ${invoice} to be delivered`,
  );

const completed = (workflowId: string) =>
  eventually(
    async () => {
      const workflow = await platform.client.workflow.getHandle(workflowId).describe();
      return workflow.status.name === 'COMPLETED' ? workflow : undefined;
    },
    15_000,
    `${workflowId} to complete`,
  );

/** The notification packet, verified here with Node's crypto (independently of the sandbox merchant). */
async function verifyIndependently(merchant: Merchant, encoded: string, checksum: string, signature: string) {
  expect(createHmac('sha1', merchant.secret).update(encoded).digest('hex')).toBe(checksum);
  const publicKey = await (await fetch(url('/.well-known/notification-key.pem'))).text();
  expect(createVerify('RSA-SHA256').update(encoded).verify(publicKey, signature, 'base64')).toBe(true);
  return Buffer.from(encoded, 'base64').toString('utf8');
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Whether a request has answered yet, without waiting for it. */
async function settledYet(request: Promise<TextReply>): Promise<boolean> {
  return Promise.race([request.then(() => true), pause(0).then(() => false)]);
}

describe('a worker process killed with SIGKILL while a cash payout waits for collection', () => {
  it('collected while the worker is down, or right after the restart: PAID once, notified once', async () => {
    const merchant = await platform.createSandboxMerchant({ name: 'Lender' });
    const first = await workers.start();
    const [invoiceDown, invoiceAfter] = [newInvoice(), newInvoice()];
    const farExpiry = { EXP_TIME: expTimeIn(86_400_000) };
    const down = await orderPayout(merchant, invoiceDown, farExpiry);
    const after = await orderPayout(merchant, invoiceAfter, farExpiry);
    await waitingForCollection(down);
    await waitingForCollection(after);

    await first.kill();
    expect(first.child.signalCode).toBe('SIGKILL');

    // The recipient comes to the office while no worker runs: the collection waits for one.
    const collectedWhileDown = collect(down);
    await pause(1_000);
    expect(await settledYet(collectedWhileDown)).toBe(false);
    expect((await readRow(down))?.status).toBe('PENDING');
    expect(received(merchant)).toHaveLength(0);

    await workers.start();
    // The other recipient comes right after the restart.
    const collectedAfter = collect(after);
    const [whileDown, afterRestart] = await Promise.all([collectedWhileDown, collectedAfter]);
    for (const [reply, sysCode, invoice] of [
      [whileDown, down, invoiceDown],
      [afterRestart, after, invoiceAfter],
    ] as const) {
      expect(reply.status, reply.body).toBe(200);
      expect(reply.fields).toMatchObject({
        STATUS: 'PAID',
        SYS_CODE: sysCode,
        INVOICE: invoice,
        AMOUNT: '150.00',
        RCPT_NAME: 'Ivan Petrov',
        STAN: '000000',
        BCODE: '000000',
      });
      expect(reply.fields.PAY_TIME).toMatch(/^\d{14}$/);
    }

    for (const [sysCode, invoice, reply] of [
      [down, invoiceDown, whileDown],
      [after, invoiceAfter, afterRestart],
    ] as const) {
      const notification = await delivered(merchant, invoice);
      expect(await readRow(sysCode)).toMatchObject({
        status: 'PAID',
        stan: '000000',
        bcode: '000000',
        payTime: reply.fields.PAY_TIME,
      });
      const workflow = await completed(`payout-${sysCode}`);
      expect(workflow.typedSearchAttributes.get({ name: 'BusinessStatus', type: 'KEYWORD' } as never)).toBe(
        'PAID',
      );
      expect(notification).toMatchObject({ status: 'PAID', stan: '000000', bcode: '000000' });
    }

    // A second collection of the same payout is refused: the money is handed out once.
    const twice = await collect(down);
    expect(twice.status).toBe(409);
    expect(twice.fields.ERR).toBe('ALREADY_PAID');

    await pause(QUIET_MS); // a duplicate notification would arrive within this
    for (const [sysCode, invoice, reply] of [
      [down, invoiceDown, whileDown],
      [after, invoiceAfter, afterRestart],
    ] as const) {
      expect(await statusHistory(sysCode)).toEqual(['PAID']);
      const posts = received(merchant).filter((post) => post.lines.some((line) => line.invoice === invoice));
      expect(posts).toHaveLength(1);
      const post = posts[0]!;
      expect(post).toMatchObject({ checksumValid: true, signatureValid: true, httpStatus: 200 });
      const line = post.lines.find((candidate) => candidate.invoice === invoice);
      expect(line).toEqual({
        invoice,
        status: 'PAID',
        payTime: reply.fields.PAY_TIME,
        stan: '000000',
        bcode: '000000',
      });
      expect(post.reply).toContain(`INVOICE=${invoice}:STATUS=OK`);
      const text = await verifyIndependently(merchant, post.encoded, post.checksum, post.signature);
      expect(text).toContain(
        `INVOICE=${invoice}:STATUS=PAID:PAY_TIME=${reply.fields.PAY_TIME}:STAN=000000:BCODE=000000`,
      );

      const notifications = await notificationsOf(merchant, invoice);
      expect(notifications).toHaveLength(1);
      expect(notifications[0]).toMatchObject({ status: 'PAID', delivery: 'delivered', attemptCount: 1 });
      expect(notifications[0]?.attempts).toMatchObject([{ attempt: 1, httpStatus: 200, reply: 'OK' }]);
    }
    // Two invoices, each in exactly one POST (batched together or not).
    const lines = received(merchant).flatMap((post) => post.lines);
    expect(lines.map((line) => line.invoice).sort()).toEqual([invoiceDown, invoiceAfter].sort());
  }, 120_000);

  it('not collected: expires once after the restart, notified once, and is refused afterwards', async () => {
    const merchant = await platform.createSandboxMerchant({ name: 'Lender' });
    const first = await workers.start();
    const invoice = newInvoice();
    const sysCode = await orderPayout(merchant, invoice); // expires after PAYOUT_EXPIRY_MS
    const expiresAt = (await readRow(sysCode))!.expiresAt.getTime();
    await waitingForCollection(sysCode);

    await first.kill();
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(Date.now()).toBeLessThan(expiresAt); // killed before the expiry

    // The expiry passes while no worker runs: nothing happens until one comes back.
    await pause(expiresAt + 500 - Date.now());
    expect((await readRow(sysCode))?.status).toBe('PENDING');
    expect(received(merchant)).toHaveLength(0);
    // A recipient who comes after the expiry, while the worker is down, is refused once it is back.
    const lateWhileDown = collect(sysCode);

    await workers.start();
    const refused = await lateWhileDown;
    expect(refused.status, refused.body).toBe(409);
    expect(refused.fields.ERR).toBe('EXPIRED');

    const notification = await eventually(
      async () => {
        const [found] = await notificationsOf(merchant, invoice);
        return found?.delivery === 'delivered' ? found : undefined;
      },
      30_000,
      'the EXPIRED notification to be delivered',
    );
    expect(notification.status).toBe('EXPIRED');
    const row = await readRow(sysCode);
    expect(row).toMatchObject({ status: 'EXPIRED', stan: null, bcode: null, payTime: null });
    const workflow = await completed(`payout-${sysCode}`);
    expect(workflow.typedSearchAttributes.get({ name: 'BusinessStatus', type: 'KEYWORD' } as never)).toBe(
      'EXPIRED',
    );

    // And after the expiry has been recorded, at the office again: still refused.
    const late = await collect(sysCode);
    expect(late.status).toBe(409);
    expect(late.fields.ERR).toBe('EXPIRED');

    await pause(QUIET_MS); // a duplicate notification would arrive within this
    expect(await statusHistory(sysCode)).toEqual(['EXPIRED']);
    expect((await readRow(sysCode))?.status).toBe('EXPIRED');
    const posts = received(merchant);
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({ checksumValid: true, signatureValid: true, httpStatus: 200 });
    expect(posts[0]?.lines).toEqual([
      { invoice, status: 'EXPIRED', payTime: undefined, stan: undefined, bcode: undefined },
    ]);
    const text = await verifyIndependently(
      merchant,
      posts[0]!.encoded,
      posts[0]!.checksum,
      posts[0]!.signature,
    );
    expect(text).toBe(`INVOICE=${invoice}:STATUS=EXPIRED\n`);
    const notifications = await notificationsOf(merchant, invoice);
    expect(notifications).toHaveLength(1);
    expect(notifications[0]).toMatchObject({ status: 'EXPIRED', delivery: 'delivered', attemptCount: 1 });
    expect(notifications[0]?.attempts).toMatchObject([{ attempt: 1, httpStatus: 200, reply: 'OK' }]);
  }, 120_000);
});
