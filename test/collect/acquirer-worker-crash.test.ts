import { and, count, eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collectObligationEvents, collectObligations } from '../../db/schema/collect.ts';
import { collectCardPages } from '../../db/schema/collect-card-page.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { workerProcesses } from '../support/worker-process.ts';
import { holdWithCard } from './card-client.ts';
import { expTimeIn, newInvoice, postForm, signedPacket } from './epay-client.ts';

/**
 * A capture at the card acquirer against a real crash: the worker runs as its own OS process and is
 * SIGKILLed while the FINALIZE's capture is being retried (the acquirer did the capture but its answer
 * was lost); a new process takes over. The capture is asked again with the same idempotency key, so the
 * money is taken once, the hold is PAID once, with the acquirer's STAN and BCODE.
 */
let platform: TestPlatform;
let merchant: { min: string; secret: string };
const workers = workerProcesses(() => platform.env);

beforeAll(async () => {
  platform = await startTestPlatform({ worker: 'none' });
  merchant = await platform.createMerchant({ name: 'Crash hotel' });
});
afterEach(async () => {
  await workers.killAll();
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await workers.killAll();
  await platform?.stop();
});

describe('capture across a worker crash', () => {
  it('is made once at the acquirer and settles the hold once', async () => {
    const first = await workers.start();
    const packet = {
      MIN: merchant.min,
      PHASE: 'REGISTER',
      INVOICE: newInvoice(),
      AMOUNT: '75.00',
      EXP_TIME: expTimeIn(86_400_000),
    };
    const registered = await postForm(
      `${platform.collectUrl}/v3main/`,
      signedPacket(packet, merchant.secret),
    );
    const idn = registered.fields.IDN ?? '';
    expect((await holdWithCard(platform.collectUrl, packet, merchant.secret)).status).toBe(200);

    // The acquirer captures, but every answer is lost on the way back until the crash.
    const acquirer = platform.sandbox.acquirer;
    acquirer.loseAnswers('capture', 1_000);
    const finalizing = postForm(
      `${platform.collectUrl}/v3main/`,
      signedPacket({ MIN: merchant.min, PHASE: 'FINALIZE', IDN: idn, AMOUNT: '75.00' }, merchant.secret),
    );
    const asked = () => acquirer.requests.filter((r) => r.path.endsWith('/capture'));
    await eventually(async () => (asked().length > 0 ? true : undefined), 20_000, 'the first capture');
    await first.kill();
    acquirer.loseAnswers('capture', 0);
    await workers.start();

    const finalized = await finalizing;
    expect(finalized.status, finalized.body).toBe(200);
    const [page] = await platform.db
      .select({ id: collectCardPages.authorisationId })
      .from(collectCardPages)
      .where(eq(collectCardPages.idn, idn));
    const captured = acquirer.authorisation(page?.id ?? '');
    expect(captured).toMatchObject({ status: 'captured', capturedMinor: 7500 });
    expect(finalized.fields).toMatchObject({
      STATUS: 'PAID',
      AMOUNT: '75.00',
      STAN: captured?.capture?.stan,
      BCODE: captured?.approvalCode,
    });
    // Every capture request was the same operation; the last one was answered.
    expect(new Set(asked().map((r) => r.idempotencyKey))).toEqual(new Set([`${idn}:capture`]));
    expect(asked().at(-1)?.status).toBe(200);
    const [row] = await platform.db.select().from(collectObligations).where(eq(collectObligations.idn, idn));
    expect(row).toMatchObject({ status: 'PAID', paidAmountMinor: 7500 });
    const [paidEvents] = await platform.db
      .select({ n: count() })
      .from(collectObligationEvents)
      .where(and(eq(collectObligationEvents.idn, idn), eq(collectObligationEvents.status, 'PAID')));
    expect(paidEvents?.n).toBe(1);
  });
});
