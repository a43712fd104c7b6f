import { eq } from 'drizzle-orm';
import { messagingMessages } from '../db/schema/messaging.ts';
import type { Baselines, BenchContext } from './context.ts';
import { CONNECTIONS, closedLoop, httpLoad, pause, warmUpSeconds } from './load.ts';
import { latency, rate, report } from './results.ts';

const BASELINE_MESSAGE = 'Bench baseline row';

/**
 * The three baselines, measured on the same Temporal server and database as the stack, each by its
 * own process (bench/baseline-server.ts serves them; this process only sends the load):
 *   (a) a bare Hono route inserting the row POST /messaging/sms inserts;
 *   (b) a bare Hono route that only starts the minimal one-activity workflow (bench/minimal-workflow.ts);
 *   (c) that workflow started and awaited end to end, CONNECTIONS at a time.
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
  // Rows no workflow will deliver: gone before the sections count the messages in flight.
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
  return { write, start, endToEnd };
}
