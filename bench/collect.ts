import { formatExpTime } from '../domain/epay-time.ts';
import { processRss } from './child.ts';
import { benchCashDesk } from './collect-desk.ts';
import {
  dayAhead,
  type Merchant,
  merchantNotifications,
  registeredIdn,
  registrationPath,
} from './collect-obligations.ts';
import { benchStatementImport } from './collect-statement.ts';
import type { BenchContext } from './context.ts';
import { CONNECTIONS, httpLoad, type Measured, pause, percentile, runLoad, scenarioChosen } from './load.ts';
import { endToEndBaseline, latency, mb, rate, report } from './results.ts';

const SECTION = 'collect';
/** Open obligations held on their expiry timers, then expiring in the same second (the storm). */
const OPEN_OBLIGATIONS = Number(process.env.BENCH_OPEN_OBLIGATIONS ?? 10_000);
/** How long to wait for the storm's notifications before giving up. */
const STORM_TIMEOUT_SECONDS = Number(process.env.BENCH_STORM_TIMEOUT_SECONDS ?? 1800);

/**
 * Payment-collection gateway, each scenario skippable (BENCH_SCENARIOS):
 *   registration: GET /collect/office/reg_bill.cgi (authenticate, validate, insert, start the obligation
 *   workflow) vs (b) a bare workflow start;
 *   storm: OPEN_OBLIGATIONS open obligations on their expiry timers: the stack's memory (API + worker)
 *   and the Temporal server's; all of them expiring at once: EXPIRED lines received by the sandbox
 *   merchant per second, vs (c);
 *   statement: a camt.053 of N credits matched against N open deposit slips (bench/collect-statement.ts);
 *   desk: cash-desk payments end to end (bench/collect-desk.ts).
 */
export async function benchCollect(context: BenchContext): Promise<void> {
  let registrationRate: number | undefined;
  if (scenarioChosen('registration')) registrationRate = await benchRegistration(context);
  if (scenarioChosen('storm')) await benchStorm(context, registrationRate);
  if (scenarioChosen('statement')) await benchStatementImport(context);
  if (scenarioChosen('desk')) await benchCashDesk(context);
}

const registered = (status: number, body: string) => registeredIdn(status, body) !== undefined;

async function benchRegistration(context: BenchContext): Promise<number> {
  const { stack, baselines } = context;
  const merchant = await context.control<Merchant>('POST', '/merchant', { name: 'Bench registrations' });
  const expTime = dayAhead();
  const registering = await httpLoad({
    url: `${stack.collectUrl}/office/reg_bill.cgi`,
    path: () =>
      registrationPath(stack.collectUrl, merchant, 'reg_bill.cgi', { AMOUNT: '22.80', EXP_TIME: expTime }),
    expect: registered,
  });
  report({
    section: SECTION,
    operation: 'GET /collect/office/reg_bill.cgi',
    figure: rate(registering),
    latency: latency(registering),
    perSecond: registering.perSecond,
    baseline: {
      label: '(b) bare start',
      figure: rate(baselines.start),
      perSecond: baselines.start.perSecond,
    },
    target: 0.8,
  });
  if (registering.firstFailure) console.log(`  first failure: ${registering.firstFailure}`);
  await context.drain('the registered obligations');
  return registering.perSecond;
}

/** Open obligations on their timers, then the storm; `registrationRate` plans the common expiry. */
async function benchStorm(context: BenchContext, registrationRate = 20): Promise<void> {
  const { stack, baselines } = context;
  const stormMerchant = await context.control<Merchant>('POST', '/merchant', { name: 'Bench storm' });
  const memory = async () => ({
    stack: processRss(stack.pid),
    temporal: context.temporalPid ? processRss(context.temporalPid) : undefined,
  });
  const before = await memory();
  // One expiry for all, far enough ahead to register them all at half the rate above.
  const planned = OPEN_OBLIGATIONS / (Math.max(10, registrationRate) / 2) + 30;
  const expiresAt = new Date(Math.ceil((Date.now() + planned * 1000) / 1000) * 1000);
  const expTime = formatExpTime(expiresAt);
  console.log(`  registering ${OPEN_OBLIGATIONS} obligations expiring at ${expiresAt.toISOString()}...`);
  // A count, not a duration: every obligation must exist.
  const registration = await runLoad(OPEN_OBLIGATIONS, CONNECTIONS, async () => {
    const path = registrationPath(stack.collectUrl, stormMerchant, 'reg_bill.cgi', {
      AMOUNT: '10.00',
      EXP_TIME: expTime,
    });
    const response = await fetch(`${stack.apiUrl}${path}`);
    const text = await response.text();
    if (!registered(response.status, text)) throw new Error(`${response.status} ${text.slice(0, 200)}`);
  });
  if (registration.firstFailure) console.log(`  first failure: ${registration.firstFailure}`);
  const open = {
    ok: registration.latencies.length,
    perSecond: registration.perSecond,
    failed: registration.errors,
    p50: percentile(registration.latencies, 0.5),
    p99: percentile(registration.latencies, 0.99),
  };
  if (Date.now() > expiresAt.getTime() - 5_000) console.log('  (registering took longer than planned)');
  await context.drain('the open obligations');
  const held = await memory();
  report({
    section: SECTION,
    operation: `${open.ok} open obligations on their expiry timers: stack (API + worker) RSS`,
    figure: `${mb(held.stack)} (+${mb((held.stack ?? 0) - (before.stack ?? 0))})`,
    note: `target below 1 GiB; Temporal server RSS ${mb(held.temporal)} (+${mb((held.temporal ?? 0) - (before.temporal ?? 0))}); registered at ${rate(open)}`,
  });

  const notified = () => merchantNotifications(context, stormMerchant);
  let received = await notified();
  while (
    new Set(received.lines.map((line) => line.invoice)).size < open.ok &&
    Date.now() < expiresAt.getTime() + STORM_TIMEOUT_SECONDS * 1000
  ) {
    await pause(2000);
    received = await notified();
  }
  const invoices = new Set(received.lines.map((line) => line.invoice));
  const delays = received.lines.map((line) => line.at - expiresAt.getTime()).sort((a, b) => a - b);
  const lastSeconds = Math.max(1, delays.at(-1) ?? 0) / 1000;
  const storm: Measured = {
    perSecond: invoices.size / lastSeconds,
    ok: invoices.size,
    failed: open.ok - invoices.size,
    p50: percentile(delays, 0.5),
    p99: percentile(delays, 0.99),
  };
  report({
    section: SECTION,
    operation: `${open.ok} obligations expiring in the same second, EXPIRED received by the merchant`,
    figure: rate(storm, 'notifications/s'),
    latency: latency(storm),
    perSecond: storm.perSecond,
    baseline: endToEndBaseline(baselines),
    target: 0.6,
    note: `${received.posts} POSTs, ${received.lines.length - invoices.size} lines repeated, ${received.failedVerification} failed verification; latency is from the expiry`,
  });
  const after = await memory();
  console.log(`  memory after the storm: stack ${mb(after.stack)}, Temporal server ${mb(after.temporal)}`);
}
