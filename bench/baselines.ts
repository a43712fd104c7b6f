import { eq } from 'drizzle-orm';
import { messagingMessages } from '../db/schema/messaging.ts';
import { runBenchScript } from './child.ts';
import type { Baselines, BenchContext } from './context.ts';
import { CONNECTIONS, closedLoop, httpLoad, pause, warmUpSeconds } from './load.ts';
import { latency, rate, report } from './results.ts';
import type { SmppBaselineResult } from './smpp-client.ts';

/** The text of baseline (a)'s rows, which no workflow delivers. */
export const BASELINE_MESSAGE = 'Bench baseline row';

/**
 * The four baselines, measured on the same Temporal server and database as the stack, each by its
 * own process (bench/baseline-server.ts serves (a)-(c); this process only sends the load):
 *   (a) a bare Hono route inserting the row POST /messaging/sms inserts;
 *   (b) a bare Hono route that only starts the minimal one-activity workflow (bench/minimal-workflow.ts);
 *   (c) that workflow started and awaited end to end, CONNECTIONS at a time;
 *   (d) a bare SMPP client (bench/smpp-client.ts, a process of its own) on the stack's sandbox SMSC:
 *       BENCH_SMPP_MESSAGES (2000) messages, BENCH_SMPP_WINDOW (32) submit_sm outstanding, until every
 *       delivery receipt arrived: the most a gateway could do on that carrier.
 */
export async function benchBaselines(
  context: Omit<BenchContext, 'baselines'> & { minimalTaskQueue: string },
): Promise<Baselines> {
  const { baselineUrl, client, minimalTaskQueue, seconds } = context;
  const write = await httpLoad({
    url: `${baselineUrl}/write/sms`,
    method: 'POST',
    body: JSON.stringify({ to: '+359881234567', from: '+359888000111', message: BASELINE_MESSAGE }),
  });
  // Rows no workflow will deliver: gone before the sections count the messages in flight (an insert the
  // bare route was still answering may land after this; the messaging drain leaves those out too).
  await context.db.delete(messagingMessages).where(eq(messagingMessages.message, BASELINE_MESSAGE));
  report({
    section: 'baselines',
    operation: '(a) bare route: one insert (the row of POST /sms)',
    figure: rate(write),
    latency: latency(write),
    perSecond: write.perSecond,
  });

  const start = await httpLoad({ url: `${baselineUrl}/start`, method: 'POST' });
  report({
    section: 'baselines',
    operation: '(b) bare route: start the minimal workflow',
    figure: rate(start),
    latency: latency(start),
    perSecond: start.perSecond,
  });
  await context.drain('the started minimal workflows');

  let sequence = 0;
  const run = () =>
    client.workflow.execute('minimalWorkflow', {
      taskQueue: minimalTaskQueue,
      workflowId: `bench-minimal-e2e-${Date.now()}-${++sequence}`,
    });
  await closedLoop(warmUpSeconds(), CONNECTIONS, run);
  await pause(500);
  const endToEnd = await closedLoop(seconds, CONNECTIONS, run);
  report({
    section: 'baselines',
    operation: `(c) minimal one-activity workflow end to end, ${CONNECTIONS} at a time`,
    figure: rate(endToEnd, 'workflows/s'),
    latency: latency(endToEnd),
    perSecond: endToEnd.perSecond,
  });
  const smpp = await smppBaseline(context.stack.smpp);
  return { write, start, endToEnd, smpp };
}

async function smppBaseline(carrier: BenchContext['stack']['smpp']): Promise<Baselines['smpp']> {
  const result = await runBenchScript<SmppBaselineResult>(
    'bench/smpp-client.ts',
    {
      BENCH_SMPP_URL: carrier.url,
      BENCH_SMPP_SYSTEM_ID: carrier.systemId,
      BENCH_SMPP_PASSWORD: carrier.password,
      BENCH_SMPP_MESSAGES: process.env.BENCH_SMPP_MESSAGES ?? '2000',
      BENCH_SMPP_WINDOW: process.env.BENCH_SMPP_WINDOW ?? '32',
    },
    'the bare SMPP client (bench/smpp-client.ts)',
  );
  const smpp: Baselines['smpp'] = {
    perSecond: result.receipts / result.seconds,
    ok: result.receipts,
    failed: result.failed + (result.submitted - result.receipts),
    p50: result.p50,
    p99: result.p99,
    result,
  };
  report({
    section: 'baselines',
    operation: `(d) bare SMPP client on the sandbox SMSC: ${result.messages} messages, window ${result.window}, until every receipt arrived`,
    figure: rate(smpp, 'messages/s'),
    latency: latency(smpp),
    perSecond: smpp.perSecond,
    note: `submit_sm_resp ${(result.submitted / result.submitSeconds).toFixed(0)}/s; ${result.receipts} receipts; client CPU ${result.cpuSeconds.toFixed(1)} s`,
  });
  return smpp;
}
