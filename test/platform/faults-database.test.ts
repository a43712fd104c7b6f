import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { collectObligations } from '../../db/schema/collect.ts';
import { webhookDeliveries } from '../../db/schema/webhooks.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { expTimeIn, getText, newInvoice, signedPacket } from '../collect/epay-client.ts';
import { type IsolatedPlatform, startIsolatedPlatform } from '../support/isolated-platform.ts';
import { messagingClient } from '../support/messaging-client.ts';
import { eventually, readHealth } from '../support/platform.ts';
import { canRunOwnPostgres, type OwnPostgres, startOwnPostgres } from '../support/postgres-server.ts';

/**
 * A fault of the platform's own parts (issue 13, item 9): the PostgreSQL server (one of this test's
 * own, test/support/postgres-server.ts) stops for FAULT_DB_OUTAGE_MS (default 10 s) while an SMS, an
 * obligation's payment and another's expiry are in flight, and starts again; then it hangs (SIGSTOP)
 * for a moment. `/health` names `database` while it is missing, within its probe timeout even when the
 * server hangs; the activities retry and complete after the restart; nothing is lost or doubled (the
 * read model ends right, one delivery per event).
 */

const OUTAGE_MS = Number(process.env.FAULT_DB_OUTAGE_MS ?? 10_000);

let postgres: OwnPostgres;
let platform: IsolatedPlatform;
let reports: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  postgres = await startOwnPostgres();
  reports = await startReceiver();
  platform = await startIsolatedPlatform({
    temporalAddress: inject('temporalAddress'),
    workflowBundlePath: inject('workflowBundlePath'),
    receiptDelayMs: 1_500,
    env: { DATABASE_URL: postgres.url, SMS_RECEIPT_TIMEOUT: '10m' },
  });
}, 120_000);
afterAll(async () => {
  postgres?.thaw();
  await platform?.stop();
  await reports?.stop();
  await postgres?.destroy();
}, 60_000);

const health = () => readHealth(platform.apiUrl);

it.runIf(canRunOwnPostgres())(
  `PostgreSQL stopped for ${OUTAGE_MS / 1000} s and restarted mid-flow: /health names it, nothing lost or doubled`,
  async () => {
    await eventually(async () => ((await health()).status === 200 ? true : undefined), 30_000, 'ready');
    const api = messagingClient(() => platform);
    const merchant = await platform.createSandboxMerchant();
    const register = async (invoice: string, expiresInMs: number) => {
      const reply = await getText(
        `${platform.collectUrl}/office/reg_bill.cgi`,
        signedPacket(
          { MIN: merchant.min, INVOICE: invoice, AMOUNT: '5.00', EXP_TIME: expTimeIn(expiresInMs) },
          merchant.secret,
        ),
      );
      expect(reply.status, reply.body).toBe(200);
      return reply.fields.IDN!;
    };
    const paidInvoice = newInvoice();
    const expiringInvoice = newInvoice();
    const paidIdn = await register(paidInvoice, 3_600_000);
    const expiringIdn = await register(expiringInvoice, 3_000);

    // In flight when the server stops: the SMS's hand-over, receipt and report; the payment's
    // notification; the other obligation's expiry.
    const sms = await api('POST', '/sms', {
      body: {
        to: '+359888123456',
        from: '+359888000111',
        message: 'through the db outage',
        dlrUrl: reports.url,
      },
    });
    expect(sms.status).toBe(202);
    const smsId = String(sms.json.id);
    const paid = await getText(`${platform.collectUrl}/office/pay_bill.cgi`, { ACTION: 'PAY', IDN: paidIdn });
    expect(paid.fields.STATUS, paid.body).toBe('PAID');
    await postgres.stop();

    const down = await eventually(
      async () => {
        const answer = await health();
        return answer.body.notReady?.includes('database') ? answer : undefined;
      },
      10_000,
      '/health to name the database',
    );
    expect({ status: down.status, body: down.body }).toEqual({
      status: 503,
      body: { status: 'starting', notReady: ['database'] },
    });
    expect(down.ms).toBeLessThan(5_000);
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    await postgres.start();
    await eventually(async () => ((await health()).status === 200 ? true : undefined), 30_000, 'ready again');

    // A server that hangs instead of refusing: /health still answers in bounded time.
    postgres.freeze();
    try {
      const hung = await health();
      expect({ status: hung.status, notReady: hung.body.notReady }).toEqual({
        status: 503,
        notReady: ['database'],
      });
      expect(hung.ms).toBeLessThan(5_000);
    } finally {
      postgres.thaw();
    }
    await eventually(async () => ((await health()).status === 200 ? true : undefined), 30_000, 'ready again');

    // Everything completes after the restart.
    await eventually(
      async () => ((await api('GET', `/sms/${smsId}`)).json.status === 'delivered' ? true : undefined),
      90_000,
      'the SMS to be delivered',
    );
    const rows = await eventually(
      async () => {
        const found = await platform.db
          .select({ idn: collectObligations.idn, status: collectObligations.status })
          .from(collectObligations)
          .where(inArray(collectObligations.idn, [paidIdn, expiringIdn]));
        const status = Object.fromEntries(found.map((row) => [row.idn, row.status]));
        return status[paidIdn] === 'PAID' && status[expiringIdn] === 'EXPIRED' ? status : undefined;
      },
      90_000,
      'the obligations to settle',
    );
    expect(rows).toEqual({ [paidIdn]: 'PAID', [expiringIdn]: 'EXPIRED' });
    const notified = (invoice: string) =>
      platform.sandbox.merchant.notifications.flatMap((notification) =>
        notification.lines.filter((line) => line.invoice === invoice).map((line) => line.status),
      );
    await eventually(
      async () =>
        notified(paidInvoice).length > 0 && notified(expiringInvoice).length > 0 ? true : undefined,
      90_000,
      'the notifications',
    );
    await eventually(
      async () => (reports.requests.length > 0 ? true : undefined),
      60_000,
      'the delivery report',
    );

    // Nothing doubled: a moment for any duplicate, then exactly one of each.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(
      platform.sandbox.smpp.submitted.filter((submitted) => submitted.text === 'through the db outage'),
    ).toHaveLength(1);
    expect(reports.requests).toHaveLength(1);
    expect(reports.requests[0]!.body).toContain(smsId);
    const deliveries = await platform.db
      .select({ status: webhookDeliveries.status })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.subjectId, smsId));
    expect(deliveries).toEqual([{ status: 'delivered' }]);
    expect(notified(paidInvoice)).toEqual(['PAID']);
    expect(notified(expiringInvoice)).toEqual(['EXPIRED']);
    expect((await api('GET', `/sms/${smsId}`)).json).toMatchObject({ id: smsId, status: 'delivered' });
  },
  240_000,
);
