import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { count, inArray, sql } from 'drizzle-orm';
import { Hono } from 'hono';
import { messagingMessages } from '../db/schema/messaging.ts';
import { startReceiver } from '../sandbox/webhook-receiver.ts';
import type { BenchContext } from './context.ts';
import { formatLatencies, percentile, runLoad } from './load.ts';

const ACCEPT_REQUESTS = Number(process.env.BENCH_ACCEPT_REQUESTS ?? 2000);
const E2E_MESSAGES = Number(process.env.BENCH_E2E_MESSAGES ?? 1000);

/**
 * Messaging gateway:
 *   1. POST /sms accepted per second and latency at fixed concurrency, beside a baseline bare Hono
 *      route that inserts one row through the same database client;
 *   2. submit → delivery report received at a local dlrUrl, end to end, for N messages.
 */
export async function benchMessaging({ platform, concurrency: CONCURRENCY }: BenchContext): Promise<void> {
  // Baseline: the same HTTP server library and database client, one row per request, no Temporal.
  await platform.db.execute(
    sql`create table if not exists bench_baseline (id serial primary key, body jsonb not null)`,
  );
  const baselineApp = new Hono();
  baselineApp.post('/baseline', async (c) => {
    const body = await c.req.json();
    await platform.db.execute(sql`insert into bench_baseline (body) values (${JSON.stringify(body)}::jsonb)`);
    return c.json({ ok: true }, 202);
  });
  const baselineServer = serve({ fetch: baselineApp.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => baselineServer.once('listening', resolve));
  const baselineUrl = `http://127.0.0.1:${(baselineServer.address() as AddressInfo).port}/baseline`;

  const smsBody = (i: number) =>
    JSON.stringify({
      to: `+35988${String(i % 1_000_000).padStart(6, '0')}7`, // never ends in the sandbox's special 0000/0001
      from: '+359888000111',
      message: `Bench message ${i}`,
    });
  const post = (url: string, body: string) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
      async (response) => {
        await response.arrayBuffer();
        if (response.status !== 202) throw new Error(`unexpected status ${response.status}`);
      },
    );

  // Warm-up (JIT, connection pools), not measured.
  await runLoad(100, CONCURRENCY, (i) => post(baselineUrl, smsBody(i)));
  await runLoad(100, CONCURRENCY, (i) => post(`${platform.baseUrl}/sms?at=${platform.token}`, smsBody(i)));

  console.log('\n1. Accepting messages');
  const baseline = await runLoad(ACCEPT_REQUESTS, CONCURRENCY, (i) => post(baselineUrl, smsBody(i)));
  console.log(
    `  baseline (bare route, one insert): ${baseline.perSecond.toFixed(0)} req/s, ${formatLatencies(baseline)}`,
  );
  const accept = await runLoad(ACCEPT_REQUESTS, CONCURRENCY, (i) =>
    post(`${platform.baseUrl}/sms?at=${platform.token}`, smsBody(i)),
  );
  console.log(
    `  POST /sms (validate, insert, start workflow): ${accept.perSecond.toFixed(0)} req/s, ${formatLatencies(accept)}`,
  );
  console.log(`  ratio POST /sms / baseline: ${(accept.perSecond / baseline.perSecond).toFixed(2)}`);

  console.log(
    `\n2. End to end: submit → SMPP → receipt → delivery report at dlrUrl (${E2E_MESSAGES} messages)`,
  );
  // Let the messages of part 1 drain first so they do not compete.
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  const receiver = await startReceiver((_attempt, request) => {
    const report = JSON.parse(request.body) as { data: { id: string } };
    const started = sentAt.get(report.data.id);
    if (started !== undefined) latencies.push(request.at - started);
    return { status: 200 };
  });
  // Let the messages of part 1 finish first so that they do not compete with part 2.
  const inFlight = async () => {
    const [row] = await platform.db
      .select({ count: count() })
      .from(messagingMessages)
      .where(inArray(messagingMessages.status, ['accepted', 'sending', 'submitted']));
    return row?.count ?? 0;
  };
  const drainStarted = performance.now();
  while ((await inFlight()) > 0 && performance.now() - drainStarted < 600_000) {
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  console.log(
    `  (${ACCEPT_REQUESTS + 100} messages of part 1 drained in ${((performance.now() - drainStarted) / 1000).toFixed(0)} s)`,
  );
  const e2eStarted = performance.now();
  await runLoad(E2E_MESSAGES, CONCURRENCY, async (i) => {
    const started = performance.now();
    const response = await fetch(`${platform.baseUrl}/sms?at=${platform.token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        to: `+35989${String(i % 1_000_000).padStart(6, '0')}7`,
        from: '+359888000111',
        message: `E2E ${i}`,
        dlrUrl: receiver.url,
      }),
    });
    const { id } = (await response.json()) as { id: string };
    sentAt.set(id, Date.now() - (performance.now() - started));
  });
  const deadline = Date.now() + 600_000;
  while (latencies.length < E2E_MESSAGES && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100));
  const e2eSeconds = (performance.now() - e2eStarted) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(
    `  ${latencies.length}/${E2E_MESSAGES} reports received in ${e2eSeconds.toFixed(1)} s: ${(latencies.length / e2eSeconds).toFixed(1)} messages/s, ` +
      `p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p99 ${percentile(latencies, 0.99).toFixed(0)} ms`,
  );
  await receiver.stop();
  baselineServer.close();
}
