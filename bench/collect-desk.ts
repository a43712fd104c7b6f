import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import {
  type Merchant,
  merchantNotifications,
  notificationWatcher,
  type Registered,
  registerObligations,
} from './collect-obligations.ts';
import type { BenchContext } from './context.ts';
import { CONNECTIONS, percentile, runLoad } from './load.ts';
import { endToEndBaseline, latency, rate, report } from './results.ts';

const SECTION = 'collect';
/** Desk payments measured (after CONNECTIONS unmeasured ones). */
const PAYMENTS = Number(process.env.BENCH_DESK_PAYMENTS ?? 1000);

/**
 * Cash-desk payments end to end (issue 12): an operator created through the admin API logs in at the
 * desk API; office bills registered by a merchant are paid CONNECTIONS at a time from this process, each
 * measured from the desk's POST /collect/desk/api/payments until the sandbox merchant received its PAID
 * line (the obligation PAID, the ledger posted, the notification batched and signed), vs (c).
 */
export async function benchCashDesk(context: BenchContext): Promise<void> {
  const { stack, baselines } = context;
  const merchant = await context.control<Merchant>('POST', '/merchant', { name: 'Bench desk' });
  const desk = await openDesk(context);
  console.log(`  cash desk: registering ${PAYMENTS + CONNECTIONS} office bills...`);
  const { obligations } = await registerObligations(
    context,
    merchant,
    'reg_bill.cgi',
    PAYMENTS + CONNECTIONS,
    '22.80',
  );
  const watcher = notificationWatcher(context, merchant);
  try {
    const pay = async (obligation: Registered | undefined) => {
      if (!obligation) throw new Error('no office bill left to pay');
      const response = await fetch(`${stack.collectUrl}/desk/api/payments`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${desk.token}`,
          'content-type': 'application/json',
          'idempotency-key': randomUUID(),
        },
        body: JSON.stringify({ idn: obligation.idn }),
      });
      const text = await response.text();
      if (response.status !== 201) throw new Error(`desk payment: ${response.status} ${text.slice(0, 200)}`);
      const line = await watcher.notified(obligation.invoice);
      if (line.status !== 'PAID') throw new Error(`the merchant was notified ${line.status}`);
    };
    const warmUp = obligations.slice(0, CONNECTIONS);
    await runLoad(warmUp.length, CONNECTIONS, (i) => pay(warmUp[i]));
    const measured = obligations.slice(CONNECTIONS);
    const result = await runLoad(measured.length, CONNECTIONS, (i) => pay(measured[i]));
    const received = await merchantNotifications(context, merchant);
    const repeated = received.lines.length - new Set(received.lines.map((line) => line.invoice)).size;
    const endToEnd = {
      perSecond: result.perSecond,
      ok: result.latencies.length,
      failed: result.errors,
      p50: percentile(result.latencies, 0.5),
      p99: percentile(result.latencies, 0.99),
    };
    report({
      section: SECTION,
      operation: `cash-desk payment end to end (desk POST payments → PAID → merchant notified), ${measured.length} at ${CONNECTIONS} at a time`,
      figure: rate(endToEnd, 'payments/s'),
      latency: latency(endToEnd),
      perSecond: endToEnd.perSecond,
      baseline: endToEndBaseline(baselines),
      note: `${received.posts} POSTs to the merchant, ${repeated} lines repeated, ${received.failedVerification} failed verification`,
    });
    if (result.firstFailure) console.log(`  first failure: ${result.firstFailure}`);
  } finally {
    await watcher.stop();
  }
}

/** A desk operator created by the platform operator (POST /admin/collect/desk-operators), logged in. */
async function openDesk({ stack }: BenchContext): Promise<{ token: string }> {
  const login = `bench-${randomBytes(4).toString('hex')}`;
  const created = await fetch(`${stack.apiUrl}/admin/collect/desk-operators`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      login,
      name: 'Bench desk',
      officeId: String(randomInt(100_000, 999_999)),
    }),
  });
  const operator = (await created.json()) as { password?: string };
  if (created.status !== 201 || !operator.password)
    throw new Error(`creating the desk operator: ${created.status} ${JSON.stringify(operator)}`);
  const session = await fetch(`${stack.collectUrl}/desk/api/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ login, password: operator.password }),
  });
  const body = (await session.json()) as { token?: string };
  if (session.status !== 201 || !body.token)
    throw new Error(`the desk login: ${session.status} ${JSON.stringify(body)}`);
  return { token: body.token };
}
