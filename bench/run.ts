import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import postgres from 'postgres';
import { openDatabase } from '../db/client.ts';
import { platformTaskQueues } from '../domain/task-queues.ts';
import { startDevServer } from '../platform/dev-server.ts';
import { resolveTemporalCli } from '../platform/temporal-cli.ts';
import { startTemporalServer } from '../platform/temporal-server.ts';
import { TEST_DATABASE_URL } from '../test/support/database.ts';
import { benchBaselines } from './baselines.ts';
import { startBenchChild } from './child.ts';
import { benchCollect } from './collect.ts';
import type { BenchContext, StackInfo } from './context.ts';
import { benchLending } from './lending.ts';
import { benchSeconds, CONNECTIONS, pause, SCENARIOS, unknownScenarios } from './load.ts';
import { benchMessaging } from './messaging.ts';
import { benchOpenBanking } from './openbanking.ts';
import { machine, writeResults } from './results.ts';

/**
 * `npm run bench [-- <section>...] [--temporal=dev|postgres]`: figures, not pass/fail.
 *
 * Three processes besides the Temporal server and PostgreSQL (DATABASE_URL): the stack (bench/stack.ts:
 * API + worker in one process, as `npm start` runs them, on a fresh database), the baseline server
 * (bench/baseline-server.ts: bare routes and the minimal workflow's worker) and this one, which only
 * generates the load (autocannon, BENCH_CONNECTIONS=32 connections, BENCH_DURATION=10s per measurement)
 * and reads the results. The baselines are measured first, on the same servers; every section's rows
 * carry the ratio to the baseline that matches it. The table goes to stdout and bench/results/latest.md.
 *
 * --temporal=dev (default): the CLI's dev server with a SQLite file and the settings `npm start` uses
 * (BENCH_DEV_SERVER=memory: in memory). --temporal=postgres: the Temporal server on PostgreSQL
 * (platform/temporal-server.ts; built with Go on first use), on fresh databases dropped afterwards.
 */
const sections: Record<string, (context: BenchContext) => Promise<void>> = {
  messaging: benchMessaging,
  collect: benchCollect,
  openbanking: benchOpenBanking,
  lending: benchLending,
};
const args = process.argv.slice(2);
const temporalKind =
  args.find((arg) => arg.startsWith('--temporal='))?.slice('--temporal='.length) ??
  process.env.BENCH_TEMPORAL ??
  'dev';
const requested = args.filter((arg) => !arg.startsWith('--'));
const known = [...Object.keys(sections), 'baselines'];
const unknown = [...requested.filter((name) => !known.includes(name)), ...unknownScenarios()];
if (unknown.length > 0 || !['dev', 'postgres'].includes(temporalKind)) {
  console.error(
    `Usage: [BENCH_SCENARIOS=name,...] npm run bench [-- ${known.join('|')} ...] [--temporal=dev|postgres]` +
      (unknown.length ? `; unknown: ${unknown.join(', ')}` : '') +
      `\nScenarios: ${Object.entries(SCENARIOS)
        .map(([section, names]) => `${section}: ${names.join(', ')}`)
        .join('; ')}`,
  );
  process.exit(2);
}
const chosen =
  requested.length > 0 ? requested.filter((name) => name !== 'baselines') : Object.keys(sections);
const seconds = benchSeconds();
const header = [
  `run ${new Date().toISOString()}; ${machine()}`,
  `load: autocannon in its own process, ${CONNECTIONS} connections, ${seconds} s per measurement (after a warm-up)`,
];
console.log(header.join('\n'));

const cleanups: (() => Promise<void>)[] = [];
async function cleanUp() {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((error) => console.error(error));
}
process.once('SIGINT', () => void cleanUp().finally(() => process.exit(130)));

try {
  // --- Temporal -------------------------------------------------------------------------------------
  let address: string;
  let temporalPid: number | undefined;
  /** Temporal's own PostgreSQL databases, when it runs on PostgreSQL. */
  const temporalDatabases: string[] = [];
  if (temporalKind === 'postgres') {
    const prefix = `temporal_bench_${randomBytes(3).toString('hex')}`;
    const server = await startTemporalServer({
      databaseUrl: TEST_DATABASE_URL,
      databasePrefix: prefix,
      log: console.log,
    });
    cleanups.push(async () => {
      await server.stop();
      const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
      for (const name of [prefix, `${prefix}_visibility`])
        await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end();
    });
    address = server.address;
    temporalPid = server.pid;
    temporalDatabases.push(prefix, `${prefix}_visibility`);
    header.push(`Temporal: server 1.29.1 on PostgreSQL (4 history shards), ${address}`);
  } else {
    const inMemory = process.env.BENCH_DEV_SERVER === 'memory';
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-temporal-'));
    const devServer = await startDevServer({
      cliPath: await resolveTemporalCli({ explicitPath: process.env.TEMPORAL_CLI_PATH, log: console.log }),
      ...(inMemory ? {} : { dbFile: path.join(dir, 'temporal.sqlite') }),
    });
    cleanups.push(async () => {
      await devServer.stop();
      rmSync(dir, { recursive: true, force: true });
    });
    address = devServer.address;
    temporalPid = devServer.pid;
    header.push(
      `Temporal: CLI dev server ${inMemory ? 'in memory' : "with a SQLite file and npm start's settings (WAL, synchronous=off)"}`,
    );
  }

  // --- The stack and the baseline server, each a process of its own ------------------------------
  const stack = await startBenchChild<StackInfo>(
    'bench/stack.ts',
    {
      TEMPORAL_ADDRESS: address,
      BENCH_STACK_ENV: JSON.stringify({
        LOG_LEVEL: 'silent',
        // The operator's API: statement uploads and desk operators (collect).
        ADMIN_TOKEN: randomBytes(24).toString('hex'),
        // npm start's production-like settings where the test platform shortens them.
        DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE ?? '10',
        SMS_RECEIPT_TIMEOUT: '1h',
        WEBHOOK_RETRY_SCHEDULE: '1s,5s,15s',
        WEBHOOK_REQUEST_TIMEOUT: '10s',
        COLLECT_NOTIFY_BATCH_WINDOW: '1s',
        COLLECT_NOTIFY_REQUEST_TIMEOUT: '15s',
        COLLECT_NOTIFY_RETRY_SCHEDULE: '1s,5s,15s,30s,60s',
        OPENBANKING_BANK_REQUEST_TIMEOUT: '20s',
        LENDING_BUREAU_REQUEST_TIMEOUT: '10s',
        LENDING_BUREAU_ATTEMPTS: '3',
        // The messaging hand-over's knobs, when given (decision 0074: compare batch sizes and lingers).
        ...Object.fromEntries(
          ['MESSAGING_BATCH_SIZE', 'MESSAGING_BATCH_LINGER', 'SMPP_WINDOW'].flatMap((name) =>
            process.env[name] ? [[name, process.env[name]]] : [],
          ),
        ),
      }),
    },
    'the stack (bench/stack.ts)',
  );
  cleanups.push(() => stack.stop());
  const minimalTaskQueue = `bench-minimal-${randomBytes(4).toString('hex')}`;
  const baselineServer = await startBenchChild<{ url: string }>(
    'bench/baseline-server.ts',
    {
      TEMPORAL_ADDRESS: address,
      DATABASE_URL: stack.info.databaseUrl,
      DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE ?? '10',
      BENCH_ACCOUNT_ID: stack.info.accountId,
      BENCH_MINIMAL_TASK_QUEUE: minimalTaskQueue,
    },
    'the baseline server (bench/baseline-server.ts)',
  );
  cleanups.push(() => baselineServer.stop());

  const connection = await Connection.connect({ address });
  cleanups.push(() => connection.close());
  const client = new Client({ connection, namespace: stack.info.namespace });
  const database = await openDatabase({ url: stack.info.databaseUrl, poolSize: 4 });
  cleanups.push(() => database.close());

  const queues = [...Object.values(platformTaskQueues(stack.info.taskQueue)), minimalTaskQueue];
  const backlog = async () => {
    let total = 0;
    for (const name of queues)
      for (const taskQueueType of [1, 2]) {
        const answer = await client.workflowService.describeTaskQueue({
          namespace: stack.info.namespace,
          taskQueue: { name },
          taskQueueType,
          reportStats: true,
        });
        total += Number(answer.stats?.approximateBacklogCount ?? 0);
      }
    return total;
  };
  const context: Omit<BenchContext, 'baselines'> = {
    stack: stack.info,
    baselineUrl: baselineServer.info.url,
    client,
    db: database.db,
    temporalPid,
    postgresDatabases: [new URL(stack.info.databaseUrl).pathname.slice(1), ...temporalDatabases],
    seconds,
    async control<T>(method: 'GET' | 'POST', route: string, body?: unknown) {
      const response = await fetch(`${stack.info.controlUrl}${route}`, {
        method,
        ...(body === undefined
          ? {}
          : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
      if (!response.ok) throw new Error(`control ${route}: ${response.status} ${await response.text()}`);
      return (await response.json()) as T;
    },
    async drain(label: string) {
      const started = Date.now();
      let quiet = 0;
      // Two empty looks in a row: a workflow task may schedule the next activity a moment later.
      while (quiet < 2 && Date.now() - started < 600_000) {
        quiet = (await backlog()) === 0 ? quiet + 1 : 0;
        await pause(500);
      }
      console.log(`  (${label}: the backlog drained in ${((Date.now() - started) / 1000).toFixed(0)} s)`);
    },
  };

  console.log('\n== baselines ==');
  const baselines = await benchBaselines({ ...context, minimalTaskQueue });
  for (const name of chosen) {
    console.log(`\n== ${name} ==`);
    await sections[name]?.({ ...context, baselines });
  }
  writeResults(header);
} finally {
  await cleanUp();
}
process.exit(0);
