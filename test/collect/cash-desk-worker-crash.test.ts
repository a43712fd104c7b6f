import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collectDeskOperations } from '../../db/schema/collect-desk.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { workerProcesses } from '../support/worker-process.ts';
import { historyOf, idleOnTimer } from '../support/workflow-history.ts';
import {
  type Desk,
  type Merchant,
  newOperator,
  notificationsAbout,
  openDesk,
  orderPayout,
  RECIPIENT,
} from './desk-client.ts';
import { obligationRow, statusHistory as statusHistoryOf } from './read-model.ts';

/**
 * A cash desk's payout against a real crash (as test/collect/payout-worker-crash.test.ts): the worker
 * runs as its own OS process and is SIGKILLed between the desk's payment and the merchant's
 * notification (the notification waits in its batch window), or is down while the desk pays. The
 * payout must be paid once, with one receipt, and the merchant notified once.
 */

/** Long enough to kill the worker while the notification waits for its batch. */
const BATCH_WINDOW_MS = 4_000;
const QUIET_MS = 1_500;

let platform: TestPlatform;
let merchant: Merchant;
let desk: Desk;
let otherDesk: Desk;
const workers = workerProcesses(() => platform.env);

beforeAll(async () => {
  platform = await startTestPlatform({
    worker: 'none',
    env: { COLLECT_NOTIFY_BATCH_WINDOW: `${BATCH_WINDOW_MS}ms` },
  });
  merchant = await platform.createSandboxMerchant({ name: 'Lender' });
  desk = await openDesk(platform, await newOperator(platform));
  otherDesk = await openDesk(platform, await newOperator(platform));
});
afterEach(async () => {
  await workers.killAll();
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await workers.killAll();
  await platform?.stop();
});

const readRow = (idn: string) => obligationRow(platform.db, idn);

const statusHistory = (idn: string) => statusHistoryOf(platform.db, idn);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Exactly one notification POST about the invoice, PAID, once no duplicate can still be coming. */
async function notifiedOnce(invoice: string) {
  await eventually(
    async () => (notificationsAbout(platform, merchant, invoice).length > 0 ? true : undefined),
    40_000,
    `the notification of ${invoice}`,
  );
  await pause(BATCH_WINDOW_MS + QUIET_MS);
  const posts = notificationsAbout(platform, merchant, invoice);
  expect(posts).toHaveLength(1);
  expect(posts[0]).toMatchObject({ checksumValid: true, signatureValid: true, httpStatus: 200 });
  expect(posts[0]!.lines.filter((line) => line.invoice === invoice)).toMatchObject([
    { status: 'PAID', stan: '000000', bcode: '000000' },
  ]);
}

describe('the worker SIGKILLed around a cash desk payout', () => {
  it('between the payment and its notification: paid once, notified once, the same receipt on replay', async () => {
    const first = await workers.start();
    const { idn, invoice } = await orderPayout(platform, merchant);
    const key = 'desk-crash-0001';
    const paid = await desk.payOut(idn, RECIPIENT, key);
    expect(paid.status, JSON.stringify(paid.body)).toBe(201);
    await first.kill();
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(notificationsAbout(platform, merchant, invoice)).toHaveLength(0);
    expect((await readRow(idn))?.status).toBe('PAID');

    await workers.start();
    await notifiedOnce(invoice);
    expect(await statusHistory(idn)).toEqual(['PAID']);
    const replay = await desk.payOut(idn, RECIPIENT, key);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({ receipt: paid.body.receipt, replayed: true });
    const again = await otherDesk.payOut(idn, RECIPIENT);
    expect(again.status).toBe(409);
    expect(again.body.error?.code).toBe('already_paid');
  }, 120_000);

  it('down while two desks (one of them retrying) pay out: one receipt once it is back, notified once', async () => {
    const first = await workers.start();
    const { idn, invoice } = await orderPayout(platform, merchant);
    await eventually(
      async () => {
        return idleOnTimer(await historyOf(platform.client, `payout-${idn}`)) ? true : undefined;
      },
      15_000,
      'the payout to wait for collection',
    );
    await first.kill();

    const key = 'desk-crash-0002';
    const requests = [
      desk.payOut(idn, RECIPIENT, key),
      desk.payOut(idn, RECIPIENT, key),
      otherDesk.payOut(idn, RECIPIENT),
    ];
    await pause(1_000);
    expect((await readRow(idn))?.status).toBe('PENDING');

    await workers.start();
    const replies = await Promise.all(requests);
    const receipts = new Set(
      replies.filter((reply) => reply.status < 300).map((reply) => reply.body.receipt.receipt),
    );
    expect(receipts.size).toBe(1);
    for (const reply of replies.filter((candidate) => candidate.status >= 300)) {
      expect(reply.status).toBe(409);
      expect(reply.body.error?.code).toBe('already_paid');
    }
    expect((await readRow(idn))?.status).toBe('PAID');
    await notifiedOnce(invoice);
    expect(await statusHistory(idn)).toEqual(['PAID']);
    const operations = await platform.db
      .select()
      .from(collectDeskOperations)
      .where(eq(collectDeskOperations.idn, idn));
    expect(operations.filter((operation) => operation.state === 'completed')).toHaveLength(1);
  }, 120_000);
});
