import { and, count, eq, inArray } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { collectObligationEvents, collectObligations } from '../../db/schema/collect.ts';
import { merchantNotificationsWorkflowId } from '../../domain/collect/processes.ts';
import { expectLedgerBalanced } from '../support/ledger.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { workerProcesses } from '../support/worker-process.ts';
import { camt053 } from './camt-builder.ts';
import { expTimeIn, getText, newInvoice, signedPacket } from './epay-client.ts';

/**
 * A statement import against a real crash: the worker runs as its own OS process and is killed with
 * SIGKILL while the import's settlement batch is paying obligations (some paid, their credits not yet
 * recorded as settled). A new worker retries the batch: every obligation ends PAID once, with one
 * ledger settlement and one merchant notification, and every credit counts as settled.
 */

const ADMIN_TOKEN = 'admin-token-for-statement-crash-0123456789';
const CREDITS = 80;

let platform: TestPlatform;
const workers = workerProcesses(() => platform.env);

beforeAll(async () => {
  platform = await startTestPlatform({ worker: 'none', env: { ADMIN_TOKEN } });
});
afterEach(async () => {
  await workers.killAll();
  await expectLedgerBalanced(platform.db);
});
afterAll(async () => {
  await workers.killAll();
  await platform?.stop();
});

const admin = (method: string, path: string, body?: string) =>
  fetch(`${platform.apiUrl}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/xml' },
    body,
  });

describe('a worker killed with SIGKILL while a statement settles its credits', () => {
  it('settles every obligation once after the restart: PAID once, notified once', async () => {
    const merchant = await platform.createSandboxMerchant();
    await workers.start();
    const slips: { idn: string; invoice: string }[] = [];
    for (let start = 0; start < CREDITS; start += 25) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(25, CREDITS - start) }, async () => {
          const invoice = newInvoice();
          const answer = await getText(
            `${platform.collectUrl}/office/reg_vnbel.cgi`,
            signedPacket(
              { MIN: merchant.min, INVOICE: invoice, AMOUNT: '12.34', EXP_TIME: expTimeIn(86_400_000) },
              merchant.secret,
            ),
          );
          expect(answer.status, answer.body).toBe(200);
          return { idn: answer.fields.IDN ?? '', invoice };
        }),
      );
      slips.push(...batch);
    }
    const idns = slips.map((slip) => slip.idn);
    const paidCount = async () =>
      (
        await platform.db
          .select({ paid: count() })
          .from(collectObligations)
          .where(and(inArray(collectObligations.idn, idns), eq(collectObligations.status, 'PAID')))
      )[0]?.paid ?? 0;

    const xml = camt053({
      id: `CRASH-${Date.now()}`,
      entries: slips.map((slip, n) => ({ ref: `CR${Date.now()}-${n}`, amount: '12.34', ustrd: [slip.idn] })),
    });
    const uploaded = await admin('POST', '/collect/statements', xml);
    expect(uploaded.status).toBe(202);
    const { statements } = (await uploaded.json()) as { statements: { statementId: string }[] };

    // Some obligations are paid; the batch that pays them has not recorded its outcomes yet.
    const paidAtCrash = await eventually(async () => {
      const paid = await paidCount();
      return paid >= 5 ? paid : undefined;
    });
    await workers.killAll();
    expect(paidAtCrash).toBeLessThan(CREDITS);

    await workers.start();
    const statement = await eventually(
      async () => {
        const response = await admin('GET', `/collect/statements/${statements[0]?.statementId}`);
        const body = (await response.json()) as { status: string; settled: number; review: number };
        return body.status === 'imported' ? body : undefined;
      },
      120_000,
      'the statement to be imported',
    );
    expect(statement).toMatchObject({ settled: CREDITS, review: 0 });
    expect(await paidCount()).toBe(CREDITS);
    const events = await platform.db
      .select({ idn: collectObligationEvents.idn })
      .from(collectObligationEvents)
      .where(inArray(collectObligationEvents.idn, idns));
    expect(events).toHaveLength(CREDITS);

    // Every notification delivered, each invoice exactly once.
    const lines = () =>
      platform.sandbox.merchant.notifications
        .filter((post) => post.min === merchant.min)
        .flatMap((post) => post.lines);
    await eventually(async () => (lines().length >= CREDITS ? true : undefined), 60_000, 'notifications');
    await platform.client.workflow.getHandle(merchantNotificationsWorkflowId(merchant.min)).result();
    const invoices = lines().map((line) => line.invoice);
    expect(invoices.toSorted()).toEqual(slips.map((slip) => slip.invoice).toSorted());
  }, 300_000);
});
