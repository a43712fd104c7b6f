import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startDevServer } from '../platform/dev-server.ts';
import { resolveTemporalCli, temporalCliVersion } from '../platform/temporal-cli.ts';
import { formatLatencies, type LoadResult, runLoad } from './load.ts';
import { probeAccept, probeActivities, type probeWorkflow } from './probe-workflow.ts';

/**
 * `npm run bench:sqlite`: which SQLite settings of the embedded dev server suit throughput. For each
 * configuration it starts `temporal server start-dev` (platform/dev-server.ts, varying only the storage
 * flags), a worker in this process, and completes BENCH_WORKFLOWS probe workflows
 * (Update-with-Start, 100 ms timer, one no-op activity), 50 in flight at a time. Figures, not pass/fail;
 * the load generator, the worker and the server share the machine's cores.
 */
const WORKFLOWS = Number(process.env.BENCH_WORKFLOWS ?? 200);
const CONCURRENCY = 50;
const WARMUP_WORKFLOWS = 20;
const CONFIGURATION_TIMEOUT_MS = 5 * 60_000;
const TASK_QUEUE = 'bench-sqlite';

interface Configuration {
  label: string;
  description: string;
  persisted: boolean;
  pragmas: string[];
}

const configurations: Configuration[] = [
  { label: 'a', description: 'in-memory (no --db-filename)', persisted: false, pragmas: [] },
  { label: 'b', description: 'db file, default SQLite settings', persisted: true, pragmas: [] },
  {
    label: 'c',
    description: 'db file, journal_mode=wal + synchronous=off (npm start)',
    persisted: true,
    pragmas: ['journal_mode=wal', 'synchronous=off'],
  },
];

interface Measurement {
  configuration: Configuration;
  result?: LoadResult;
  failure?: string;
  dbBytes?: number;
}

async function measure(
  cliPath: string,
  workflowBundle: { code: string },
  configuration: Configuration,
): Promise<Measurement> {
  const tempDir = configuration.persisted ? mkdtempSync(path.join(os.tmpdir(), 'bench-sqlite-')) : undefined;
  const dbFile = tempDir ? path.join(tempDir, 'temporal.db') : undefined;
  const server = await startDevServer({
    cliPath,
    ...(dbFile ? { dbFile } : {}),
    sqlitePragmas: configuration.pragmas,
  });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: 'default' });
  const workerConnection = await NativeConnection.connect({ address: server.address });
  const worker = await Worker.create({
    connection: workerConnection,
    namespace: 'default',
    taskQueue: TASK_QUEUE,
    workflowBundle,
    activities: probeActivities,
  });
  const running = worker.run();

  const run = `${configuration.label}-${Date.now()}`;
  const probe = async (i: number) => {
    const startWorkflowOperation = new WithStartWorkflowOperation<typeof probeWorkflow>('probeWorkflow', {
      workflowId: `probe-${run}-${i}`,
      taskQueue: TASK_QUEUE,
      workflowIdConflictPolicy: 'FAIL',
    });
    await client.workflow.executeUpdateWithStart(probeAccept, {
      args: [`ref-${i}`],
      startWorkflowOperation,
    });
    const handle = await startWorkflowOperation.workflowHandle();
    await handle.result();
  };

  const measurement: Measurement = { configuration };
  let timer: NodeJS.Timeout | undefined;
  try {
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`aborted after ${CONFIGURATION_TIMEOUT_MS / 1000} s`)),
        CONFIGURATION_TIMEOUT_MS,
      );
    });
    measurement.result = await Promise.race([
      (async () => {
        // Warm-up so the worker's first workflow-context creation and server caches are not measured.
        await runLoad(WARMUP_WORKFLOWS, Math.min(CONCURRENCY, WARMUP_WORKFLOWS), (i) => probe(-1 - i));
        return runLoad(WORKFLOWS, CONCURRENCY, probe);
      })(),
      timedOut,
    ]);
  } catch (error) {
    measurement.failure = error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
    worker.shutdown();
    await Promise.race([
      running.catch(() => undefined),
      new Promise((resolve) => setTimeout(resolve, 15_000)),
    ]);
    await connection.close();
    await workerConnection.close();
    // Database plus its -wal/-shm companions, while the server still holds them.
    if (tempDir) {
      measurement.dbBytes = readdirSync(tempDir).reduce(
        (total, name) => total + statSync(path.join(tempDir, name)).size,
        0,
      );
    }
    await server.stop();
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  }
  return measurement;
}

Runtime.install({ logger: new DefaultLogger('ERROR') });
const cliPath = await resolveTemporalCli({ explicitPath: process.env.TEMPORAL_CLI_PATH });
const workflowBundle = await bundleWorkflowCode({
  workflowsPath: fileURLToPath(new URL('./probe-workflow.ts', import.meta.url)),
  logger: { log() {}, trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error },
});

const load = os.loadavg().map((value) => value.toFixed(2));
console.log(`Temporal CLI: ${temporalCliVersion(cliPath).split('\n')[0]}`);
console.log(`Machine: ${os.cpus().length} cores, load average ${load.join(' ')} at start.`);
console.log(
  `Each configuration: ${WARMUP_WORKFLOWS} warm-up workflows, then ${WORKFLOWS} measured, ${CONCURRENCY} in flight.\n`,
);

const measurements: Measurement[] = [];
for (const configuration of configurations) {
  const measurement = await measure(cliPath, workflowBundle, configuration);
  measurements.push(measurement);
  const { result } = measurement;
  const size =
    measurement.dbBytes === undefined ? '' : `, db files ${(measurement.dbBytes / 1e6).toFixed(1)} MB`;
  console.log(
    result
      ? `(${configuration.label}) ${configuration.description}: ${result.perSecond.toFixed(1)} workflows/s, ${formatLatencies(result)} (${result.seconds.toFixed(1)} s${size})`
      : `(${configuration.label}) ${configuration.description}: FAILED — ${measurement.failure}`,
  );
}

const perSecond = (label: string) =>
  measurements.find((measurement) => measurement.configuration.label === label)?.result?.perSecond;
const walOff = perSecond('c');
const defaults = perSecond('b');
console.log(
  walOff !== undefined && defaults !== undefined
    ? `\nratio (c)/(b): ${(walOff / defaults).toFixed(2)}`
    : '\nratio (c)/(b): n/a (a configuration failed)',
);
// An aborted configuration may leave client calls pending; end the process explicitly.
process.exit(0);
