import { and, count, eq, inArray, ne } from 'drizzle-orm';
import { messagingMessages } from '../db/schema/messaging.ts';
import { startReceiver } from '../sandbox/webhook-receiver.ts';
import { BASELINE_MESSAGE } from './baselines.ts';
import type { BenchContext } from './context.ts';
import {
  CONNECTIONS,
  closedLoop,
  httpLoad,
  type Measured,
  pause,
  percentile,
  warmUpSeconds,
} from './load.ts';
import { cpuPer, type ProcessUse, watchResources } from './resources.ts';
import { endToEndBaseline, latency, mb, rate, report } from './results.ts';

const SECTION = 'messaging';
/** How long the accepted messages may take to finish before the next measurement starts anyway. */
const DRAIN_TIMEOUT_MS = Number(process.env.BENCH_DRAIN_TIMEOUT_SECONDS ?? 300) * 1000;

/**
 * Messaging gateway:
 *   POST /messaging/sms (validate, insert the row and its outbox entry; the hand-over starts the workflow
 *   after the answer) vs (a) a bare insert;
 *   GET /messaging/sms/{id} vs a bare route reading the same row;
 *   an SMS end to end — accepted → SMPP submit_sm → deliver_sm receipt → signed report received at a
 *   dlrUrl in this process — CONNECTIONS at a time, each sender waiting for its report, vs (c) the
 *   minimal workflow end to end; then as many messages as (d) sent, from CONNECTIONS senders that do
 *   not wait for reports, until every report arrived, vs (d) the bare SMPP client on the same sandbox
 *   SMSC, with the CPU seconds per 1,000 messages of the stack, the Temporal server and the PostgreSQL
 *   backends, and their peak RSS, over that run.
 */
export async function benchMessaging(context: BenchContext): Promise<void> {
  const { stack, baselines, baselineUrl, db } = context;
  const sms = `${stack.messagingUrl}/sms?at=${stack.token}`;
  const body = (extra: Record<string, string> = {}) =>
    JSON.stringify({ to: '+359881234567', from: '+359888000111', message: 'Bench message', ...extra });

  const accept = await httpLoad({ url: sms, method: 'POST', body: body() });
  report({
    section: SECTION,
    operation: 'POST /messaging/sms',
    figure: rate(accept),
    latency: latency(accept),
    perSecond: accept.perSecond,
    // The accept writes the row and its outbox entry and answers; the workflow starts after (decision 0066).
    baseline: {
      label: '(a) bare insert',
      figure: rate(baselines.write),
      perSecond: baselines.write.perSecond,
    },
    target: 0.8,
    note: `(b) bare start ${rate(baselines.start)}`,
  });
  if (accept.firstFailure) console.log(`  first failure: ${accept.firstFailure}`);
  await drainMessages(context);

  // Reads: one delivered message, through the API and through a bare route.
  const [message] = await db
    .select({ id: messagingMessages.id })
    .from(messagingMessages)
    .where(eq(messagingMessages.accountId, stack.accountId))
    .limit(1);
  if (!message) throw new Error('no message to read');
  const bareRead = await httpLoad({ url: `${baselineUrl}/read/sms/${message.id}` });
  const read = await httpLoad({ url: `${stack.messagingUrl}/sms/${message.id}?at=${stack.token}` });
  report({
    section: SECTION,
    operation: 'GET /messaging/sms/{id}',
    figure: rate(read),
    latency: latency(read),
    perSecond: read.perSecond,
    baseline: { label: 'bare read of the row', figure: rate(bareRead), perSecond: bareRead.perSecond },
    target: 0.8,
  });

  // End to end: each caller sends one message and waits for its delivery report before the next.
  const waiting = new Map<string, () => void>();
  const early = new Set<string>();
  const receiver = await startReceiver((_attempt, request) => {
    const id = (JSON.parse(request.body) as { data: { id: string } }).data.id;
    const resolve = waiting.get(id);
    if (resolve) resolve();
    else early.add(id);
    return { status: 200 };
  });
  try {
    /** Sends one message; answers the wait for its report. */
    const send = async (): Promise<{ reported: Promise<void> }> => {
      const response = await fetch(sms, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: body({ dlrUrl: receiver.url }),
      });
      const { id } = (await response.json()) as { id: string };
      if (response.status !== 202) throw new Error(`POST /sms answered ${response.status}`);
      if (early.delete(id)) return { reported: Promise.resolve() };
      const reported = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no report for ${id} within ${REPORT_TIMEOUT_MS / 1000} s`)),
          REPORT_TIMEOUT_MS,
        );
        waiting.set(id, () => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve();
        });
      });
      return { reported };
    };
    const oneMessage = async () => {
      await (await send()).reported;
    };
    await closedLoop(warmUpSeconds(), CONNECTIONS, oneMessage);
    const endToEnd = await closedLoop(context.seconds, CONNECTIONS, oneMessage);
    await context.drain('the delivery reports');
    report({
      section: SECTION,
      operation: `SMS end to end with its delivery report, ${CONNECTIONS} at a time (each sender waits for its report)`,
      figure: rate(endToEnd, 'messages/s'),
      latency: latency(endToEnd),
      perSecond: endToEnd.perSecond,
      baseline: endToEndBaseline(baselines),
      target: 1.0,
    });
    if (endToEnd.firstFailure) console.log(`  first failure: ${endToEnd.firstFailure}`);

    // The shape of (d): as many messages as the bare client sent, CONNECTIONS senders that do not wait
    // for reports, until every report arrived; CPU and memory are measured over this run.
    const resources = await watchResources(
      [
        { label: 'stack (API + worker + sandbox SMSC)', pid: stack.pid },
        ...(context.temporalPid ? [{ label: 'Temporal server', pid: context.temporalPid }] : []),
      ],
      { db, databases: context.postgresDatabases },
    );
    const throughput = await sendUntilReported(baselines.smpp.result.messages, CONNECTIONS, send);
    // The CPU counts until the last report workflow has finished, not only until the last report arrived.
    await context.drain('the delivery reports');
    const used = await resources.stop();
    report({
      section: SECTION,
      operation: `SMS end to end: ${baselines.smpp.result.messages} messages from ${CONNECTIONS} senders, until every delivery report arrived`,
      figure: rate(throughput, 'messages/s'),
      latency: latency(throughput),
      perSecond: throughput.perSecond,
      baseline: {
        label: `(d) bare SMPP client, window ${baselines.smpp.result.window}`,
        figure: rate(baselines.smpp, 'messages/s'),
        perSecond: baselines.smpp.perSecond,
      },
      target: 0.6,
    });
    if (throughput.firstFailure) console.log(`  first failure: ${throughput.firstFailure}`);
    reportResources(throughput.ok, used);
  } finally {
    await receiver.stop();
  }
}

/** How long a sent message may wait for its report before it counts as failed. */
const REPORT_TIMEOUT_MS = 300_000;

/**
 * `total` messages sent by `senders` that each send their next as soon as the previous one is
 * accepted; the rate is the messages reported over the time from the first send to the last report,
 * the latency each message's, from its send to its report.
 */
async function sendUntilReported(
  total: number,
  senders: number,
  send: () => Promise<{ reported: Promise<void> }>,
): Promise<Measured> {
  const started = performance.now();
  const latencies: number[] = [];
  let failed = 0;
  let firstFailure: string | undefined;
  const reports: Promise<void>[] = [];
  let sent = 0;
  const fail = (error: unknown) => {
    failed += 1;
    firstFailure ??= (error as Error).message;
  };
  const sender = async () => {
    while (sent < total) {
      sent += 1;
      const at = performance.now();
      try {
        const { reported } = await send();
        reports.push(reported.then(() => void latencies.push(performance.now() - at), fail));
      } catch (error) {
        fail(error);
      }
    }
  };
  await Promise.all(Array.from({ length: senders }, sender));
  await Promise.all(reports);
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    ok: latencies.length,
    failed,
    perSecond: latencies.length / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    ...(firstFailure ? { firstFailure } : {}),
  };
}

/** The issue's target for the stack's CPU per 1,000 messages end to end. */
const CPU_TARGET_PER_1000 = 15;

/** CPU seconds per 1,000 messages by process and in all, and the peak RSS, of the end-to-end run. */
function reportResources(messages: number, used: ProcessUse[]): void {
  const cpu = cpuPer(used, messages, { per: 1000, digits: 1 });
  report({
    section: SECTION,
    operation: `CPU seconds per 1,000 messages of SMS end to end (${messages} messages; ${cpu.byProcess})`,
    figure: `${cpu.total.toFixed(1)} CPU-s`,
    note: `target ≤ ${CPU_TARGET_PER_1000} CPU-s${cpu.total <= CPU_TARGET_PER_1000 ? ' ✓' : ''}`,
  });
  const peaks = used.filter((each) => each.peakRss !== undefined);
  report({
    section: SECTION,
    operation: `peak RSS during SMS end to end (${peaks.map((each) => `${each.label} ${mb(each.peakRss)}`).join(', ')})`,
    figure: mb(peaks.reduce((sum, each) => sum + (each.peakRss ?? 0), 0)),
  });
}

/** Waits until no message of the accepted load is still on its way (accepted, sending, submitted). */
async function drainMessages({ db, stack }: BenchContext): Promise<void> {
  const started = Date.now();
  for (;;) {
    const rows = await db
      .select({ status: messagingMessages.status, n: count() })
      .from(messagingMessages)
      .where(
        and(
          eq(messagingMessages.accountId, stack.accountId),
          inArray(messagingMessages.status, ['accepted', 'sending', 'submitted']),
          ne(messagingMessages.message, BASELINE_MESSAGE),
        ),
      )
      .groupBy(messagingMessages.status);
    if (rows.length === 0) break;
    if (Date.now() - started > DRAIN_TIMEOUT_MS) {
      const left = rows.map((row) => `${row.n} ${row.status}`).join(', ');
      console.log(`  (messages still on their way after ${DRAIN_TIMEOUT_MS / 1000} s: ${left}; going on)`);
      return;
    }
    await pause(1000);
  }
  console.log(`  (the accepted messages were delivered in ${((Date.now() - started) / 1000).toFixed(0)} s)`);
}
