import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { type Client, WithStartWorkflowOperation } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { and, count, eq, inArray, sum } from 'drizzle-orm';
import { Hono } from 'hono';
import { loadMerchant } from '../credentials/collect/merchants.ts';
import { collectNotifications } from '../db/schema/collect-notifications.ts';
import { computeChecksum, verifyChecksum } from '../domain/collect/checksum.ts';
import { decodePacket, encodePacket } from '../domain/collect/packet.ts';
import { formatExpTime } from '../domain/collect/time.ts';
import type { BenchContext } from './context.ts';
import { formatLatencies, percentile, runLoad } from './load.ts';
import { probeAccept, probeActivities, type probeWorkflow } from './probe-workflow.ts';

const REGISTRATIONS = Number(process.env.BENCH_REGISTRATIONS ?? 2000);
const OPEN_OBLIGATIONS = Number(process.env.BENCH_OPEN_OBLIGATIONS ?? 10_000);
/** Merchants the open obligations are spread over (1: every notification goes through one merchant's batches). */
const MERCHANTS = Number(process.env.BENCH_MERCHANTS ?? 1);
/** Least time the open obligations wait, fully registered, before they expire (responsiveness is probed meanwhile). */
const WAIT_SECONDS = Number(process.env.BENCH_WAIT_SECONDS ?? 30);
/** How long to wait for the notifications of the expiries before giving up. */
const EXPIRY_TIMEOUT_SECONDS = Number(process.env.BENCH_EXPIRY_TIMEOUT_SECONDS ?? 1800);
const PROBE_TASK_QUEUE = 'bench-collect-probe';

/**
 * Payment-collection gateway:
 *   1. GET /office/reg_bill.cgi registrations per second and latency at fixed concurrency, beside a
 *      baseline bare Hono route that only loads the merchant and verifies the CHECKSUM (same domain
 *      code, same database client);
 *   2. N open obligations waiting on their expiry timers: memory of this process (which hosts the
 *      worker) and of the Temporal dev server, and the server's responsiveness (cheap calls and a
 *      trivial workflow, one at a time) before, during and after registering them;
 *   3. all of them expiring at once: EXPIRED notifications received per second at the sandbox merchant.
 */
export async function benchCollect({ platform, concurrency: CONCURRENCY }: BenchContext): Promise<void> {
  const client = platform.client;
  const namespace = platform.config.TEMPORAL_NAMESPACE;
  const benchMerchant = await platform.createSandboxMerchant({ name: 'Bench registrations' });
  console.log(
    `  ${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')} at start`,
  );

  let invoiceCounter = 0;
  let failureShown = false;
  const packet = (merchant: { min: string; secret: string }, fields: Record<string, string>) => {
    const encoded = encodePacket({
      MIN: merchant.min,
      INVOICE: `${Date.now()}${++invoiceCounter}`,
      ...fields,
    });
    return { ENCODED: encoded, CHECKSUM: computeChecksum(encoded, merchant.secret) };
  };
  const get = async (url: string, params: Record<string, string>, expected: RegExp): Promise<void> => {
    const response = await fetch(`${url}?${new URLSearchParams(params)}`);
    const text = await response.text();
    if (response.status !== 200 || !expected.test(text)) {
      const error = `unexpected answer ${response.status}: ${text.slice(0, 200)}`;
      // runLoad counts failures; show what the first one was.
      if (!failureShown) console.log(`  (first failed request: ${error})`);
      failureShown = true;
      throw new Error(error);
    }
  };

  // Baseline: the same HTTP server library, database client and domain code, no registration.
  const baselineApp = new Hono();
  baselineApp.get('/baseline', async (c) => {
    const encoded = c.req.query('ENCODED') ?? '';
    const min = decodePacket(encoded).MIN ?? '';
    const merchant = await loadMerchant(platform.db, platform.config, min);
    if (!merchant || !verifyChecksum(encoded, c.req.query('CHECKSUM') ?? '', merchant.secret)) {
      return c.text('ERR=BAD_CHECKSUM\n', 401);
    }
    return c.text(`MIN=${merchant.min}\n`);
  });
  const baselineServer = serve({ fetch: baselineApp.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => baselineServer.once('listening', resolve));
  const baselineUrl = `http://127.0.0.1:${(baselineServer.address() as AddressInfo).port}/baseline`;
  const regBillUrl = `${platform.collectUrl}/office/reg_bill.cgi`;
  const dayAhead = formatExpTime(new Date(Date.now() + 86_400_000));
  const bill = () => packet(benchMerchant, { AMOUNT: '22.80', EXP_TIME: dayAhead, ENCODING: 'utf-8' });

  // Warm-up (JIT, connection pools), not measured.
  await runLoad(100, CONCURRENCY, () => get(baselineUrl, bill(), /^MIN=/));
  await runLoad(100, CONCURRENCY, () => get(regBillUrl, bill(), /^IDN=\d{10}\n$/));

  console.log('\n1. Registering office obligations (GET /office/reg_bill.cgi)');
  const baseline = await runLoad(REGISTRATIONS, CONCURRENCY, () => get(baselineUrl, bill(), /^MIN=/));
  console.log(
    `  baseline (bare route: load merchant, verify CHECKSUM): ${baseline.perSecond.toFixed(0)} req/s, ${formatLatencies(baseline)}`,
  );
  const registering = await runLoad(REGISTRATIONS, CONCURRENCY, () =>
    get(regBillUrl, bill(), /^IDN=\d{10}\n$/),
  );
  console.log(
    `  reg_bill.cgi (authenticate, validate, insert, start workflow): ${registering.perSecond.toFixed(0)} req/s, ${formatLatencies(registering)}`,
  );
  console.log(`  ratio reg_bill.cgi / baseline: ${(registering.perSecond / baseline.perSecond).toFixed(2)}`);
  baselineServer.close();

  // --- 2. N open obligations waiting on their timers ---------------------------------------------
  console.log(
    `\n2. ${OPEN_OBLIGATIONS} open obligations waiting on their expiry timers (${MERCHANTS} merchant${MERCHANTS === 1 ? '' : 's'})`,
  );
  const probe = await startProbe(client, platform.config.TEMPORAL_ADDRESS, namespace);
  const devServerPid = findDevServerPid(platform.config.TEMPORAL_ADDRESS);
  const memory = () => {
    const { rss, heapUsed } = process.memoryUsage();
    return { rss, heapUsed, serverRss: devServerPid ? processRss(devServerPid) : undefined };
  };
  const showMemory = (label: string, m: ReturnType<typeof memory>) =>
    console.log(
      `  memory ${label}: bench process (API + worker) RSS ${mb(m.rss)}, heap used ${mb(m.heapUsed)}; ` +
        `Temporal dev server RSS ${m.serverRss === undefined ? 'n/a' : mb(m.serverRss)}`,
    );

  const merchants = await Promise.all(
    Array.from({ length: MERCHANTS }, (_, i) => platform.createSandboxMerchant({ name: `Bench ${i + 1}` })),
  );
  const mins = new Set(merchants.map((merchant) => merchant.min));

  const idle = await probe.run(() => probe.samples.length >= 20);
  probe.report('no load (the obligations of part 1 open)', idle);
  const before = memory();
  showMemory('before', before);

  // One expiry for all, far enough ahead that registering is done before it even at a quarter of
  // part 1's rate (the machine is shared; the worker starts every new workflow meanwhile).
  const expectedSeconds = OPEN_OBLIGATIONS / Math.max(1, registering.perSecond);
  const expiresAt = new Date(
    Math.ceil((Date.now() + (4 * expectedSeconds + WAIT_SECONDS + 30) * 1000) / 1000) * 1000,
  );
  const expTime = formatExpTime(expiresAt);
  console.log(`  all expire at ${expiresAt.toISOString()} (EXP_TIME=${expTime})`);

  let registered = false;
  const duringRegistration = probe.run(() => registered);
  const registration = await runLoad(OPEN_OBLIGATIONS, CONCURRENCY, (i) =>
    get(
      regBillUrl,
      packet(merchants[i % MERCHANTS]!, { AMOUNT: '10.00', EXP_TIME: expTime, ENCODING: 'utf-8' }),
      /^IDN=\d{10}\n$/,
    ),
  );
  registered = true;
  if (Date.now() > expiresAt.getTime() - 5_000) {
    console.log('  (registering took longer than planned: the waiting phase below is short or empty)');
  }
  console.log(
    `  registered ${registration.latencies.length}/${OPEN_OBLIGATIONS} in ${registration.seconds.toFixed(0)} s: ` +
      `${registration.perSecond.toFixed(0)} req/s, ${formatLatencies(registration)}`,
  );
  probe.report('while registering them', await duringRegistration);
  const waiting = await probe.run(() => Date.now() >= expiresAt.getTime() - 1000);
  const after = memory();
  probe.report(`while ${registration.latencies.length} wait (until the expiry)`, waiting);
  showMemory(`with ${registration.latencies.length + REGISTRATIONS + 100} open`, after);
  console.log(
    `  growth: bench process RSS +${mb(after.rss - before.rss)}, heap +${mb(after.heapUsed - before.heapUsed)}; ` +
      `dev server RSS ${before.serverRss !== undefined && after.serverRss !== undefined ? `+${mb(after.serverRss - before.serverRss)}` : 'n/a'}`,
  );

  // --- 3. All of them expiring -------------------------------------------------------------------
  const expected = registration.latencies.length;
  console.log(
    `\n3. ${expected} obligations expiring at once → EXPIRED notifications at the sandbox merchant`,
  );
  const posts = () =>
    platform.sandbox.merchant.notifications.filter((notification) => mins.has(notification.min));
  const receivedLines = () => posts().flatMap((post) => post.lines.map((line) => ({ ...line, at: post.at })));
  let lastCount = 0;
  let lastProgress = Date.now();
  const storm = probe.run(() => {
    const now = receivedLines().length;
    if (now !== lastCount) {
      lastCount = now;
      lastProgress = Date.now();
    }
    return now >= expected || Date.now() - expiresAt.getTime() > EXPIRY_TIMEOUT_SECONDS * 1000;
  });
  const progress = setInterval(() => {
    const elapsed = (Date.now() - expiresAt.getTime()) / 1000;
    if (elapsed > 0) console.log(`  … ${lastCount}/${expected} after ${elapsed.toFixed(0)} s`);
  }, 30_000);
  const stormProbes = await storm;
  clearInterval(progress);
  const afterStorm = memory();

  const lines = receivedLines();
  const invoices = new Set(lines.map((line) => line.invoice));
  const allPosts = posts();
  const first = Math.min(...lines.map((line) => line.at));
  const last = Math.max(...lines.map((line) => line.at));
  const seconds = (last - expiresAt.getTime()) / 1000;
  const delays = lines.map((line) => line.at - expiresAt.getTime()).sort((a, b) => a - b);
  console.log(
    `  ${invoices.size}/${expected} invoices notified EXPIRED in ${allPosts.length} POSTs ` +
      `(${(lines.length / Math.max(1, allPosts.length)).toFixed(1)} lines per POST; ${lines.length - invoices.size} lines repeated; ` +
      `${allPosts.filter((post) => !post.checksumValid || !post.signatureValid).length} failed verification)`,
  );
  console.log(
    `  first received ${((first - expiresAt.getTime()) / 1000).toFixed(1)} s after the expiry, last ${seconds.toFixed(1)} s after: ` +
      `${(lines.length / seconds).toFixed(1)} notifications/s, ${(allPosts.length / seconds).toFixed(2)} POSTs/s; ` +
      `delay from expiry p50 ${(percentile(delays, 0.5) / 1000).toFixed(1)} s, p99 ${(percentile(delays, 0.99) / 1000).toFixed(1)} s` +
      (lastCount < expected
        ? ` (gave up ${((Date.now() - lastProgress) / 1000).toFixed(0)} s after the last progress)`
        : ''),
  );
  const deliveries = await platform.db
    .select({
      delivery: collectNotifications.delivery,
      n: count(),
      attempts: sum(collectNotifications.attemptCount),
    })
    .from(collectNotifications)
    .where(
      and(inArray(collectNotifications.merchantMin, [...mins]), eq(collectNotifications.status, 'EXPIRED')),
    )
    .groupBy(collectNotifications.delivery);
  console.log(
    `  gateway records: ${deliveries.map((row) => `${row.n} ${row.delivery} (${row.attempts} attempts)`).join(', ')}`,
  );
  probe.report('while they expire and are notified', stormProbes);
  showMemory('after the expiries', afterStorm);
  await probe.stop();
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** The `temporal server start-dev` child of this process listening on the address's port (Linux /proc). */
function findDevServerPid(address: string): number | undefined {
  const port = address.split(':')[1];
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
        if (args.includes('start-dev') && args[args.indexOf('--port') + 1] === port) return Number(entry);
      } catch {
        // The process ended meanwhile.
      }
    }
  } catch {
    // No /proc: not Linux.
  }
  return undefined;
}

function processRss(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

interface ProbeSample {
  systemInfo: number;
  describeNamespace: number;
  /** Update-with-Start answered: the workflow started and its first workflow task ran. */
  accepted: number;
  /** To the workflow's completion (includes its 100 ms timer and an activity). */
  workflow: number;
}

/**
 * Temporal server responsiveness, one call at a time: getSystemInfo, describeNamespace and a trivial
 * workflow (bench/probe-workflow.ts: Update-with-Start, 100 ms timer, one no-op activity) on its own
 * task queue and worker, so the platform's worker backlog does not delay it.
 */
async function startProbe(client: Client, address: string, namespace: string) {
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('./probe-workflow.ts', import.meta.url)),
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
  });
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue: PROBE_TASK_QUEUE,
    workflowBundle,
    activities: probeActivities,
  });
  const running = worker.run();
  const samples: ProbeSample[] = [];
  let sequence = 0;
  const timed = async (call: () => Promise<unknown>) => {
    const started = performance.now();
    await call();
    return performance.now() - started;
  };

  async function sample(): Promise<ProbeSample> {
    const id = `bench-probe-${Date.now()}-${++sequence}`;
    const systemInfo = await timed(() => client.workflowService.getSystemInfo({}));
    const describeNamespace = await timed(() => client.workflowService.describeNamespace({ namespace }));
    const start = new WithStartWorkflowOperation<typeof probeWorkflow>('probeWorkflow', {
      workflowId: id,
      taskQueue: PROBE_TASK_QUEUE,
      workflowIdConflictPolicy: 'FAIL',
    });
    const started = performance.now();
    await client.workflow.executeUpdateWithStart(probeAccept, { args: [id], startWorkflowOperation: start });
    const accepted = performance.now() - started;
    await (await start.workflowHandle()).result();
    return { systemInfo, describeNamespace, accepted, workflow: performance.now() - started };
  }

  return {
    samples,
    /** Probes back to back (at least 3, 250 ms apart) until `done()`; answers this phase's samples. */
    async run(done: () => boolean): Promise<ProbeSample[]> {
      const phase: ProbeSample[] = [];
      while (phase.length < 3 || !done()) {
        const s = await sample();
        phase.push(s);
        samples.push(s);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      return phase;
    },
    report(label: string, phase: ProbeSample[]) {
      const line = (key: keyof ProbeSample) => {
        const sorted = phase.map((s) => s[key]).sort((a, b) => a - b);
        return `p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p99 ${percentile(sorted, 0.99).toFixed(1)} ms`;
      };
      console.log(
        `  Temporal ${label} (${phase.length} probes): getSystemInfo ${line('systemInfo')}; ` +
          `describeNamespace ${line('describeNamespace')}; trivial workflow: Update-with-Start answered ${line('accepted')}, ` +
          `completed ${line('workflow')}`,
      );
    },
    async stop() {
      worker.shutdown();
      await running.catch(() => undefined);
      await connection.close();
    },
  };
}
