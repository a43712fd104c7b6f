import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import v8, { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { NoopSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import proto from '@temporalio/proto';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { workflowSpanExporter } from '../cmd/worker.ts';
import { startDevServer } from '../platform/dev-server.ts';
import { platformDataConverter } from '../platform/payload-codec.ts';
import { resolveTemporalCli } from '../platform/temporal-cli.ts';
import { startTracing } from '../platform/tracing.ts';
import { ensureWorkflowBundle } from '../platform/workflow-bundle.ts';

/**
 * `npm run bench:workflow-memory`: the workflow bundle's size and the memory one cached workflow of
 * each kind costs (issue 24), read from V8's heap statistics after a full collection, not guessed from
 * RSS. The worker runs workflows in this process (`debugMode`, the same reusable-context sandbox as
 * the threaded default) with no activities registered, so each workflow started from the input of a
 * recorded 0.1.0 history stops at its first activity or timer and stays in the cache; the figure is the
 * heap growth divided by the number of workflows held. `-- --traced`: the traced bundle (decision 0059),
 * every workflow started with a trace context (its spans dropped), as a platform with tracing on runs.
 */

const { temporal } = proto;
const PER_KIND = Number(process.env.WORKFLOWS_PER_KIND ?? 300);
const KINDS = ['lendingLoan', 'collectObligation', 'messageDelivery', 'consentAuthorisation'] as const;
const HISTORIES = path.resolve(import.meta.dirname, '..', 'test', 'replay', 'histories', '0.1.0');

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

function heapUsed(): number {
  for (let i = 0; i < 3; i++) collectGarbage();
  return v8.getHeapStatistics().used_heap_size;
}

/** The arguments a recorded history's workflow was started with (0.1.0 payloads are not sealed). */
function recordedArgs(kind: string): unknown[] {
  const history = temporal.api.history.v1.History.decode(
    readFileSync(path.join(HISTORIES, kind, 'completed.binpb')),
  );
  const payloads = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
  return payloads.map((payload) => defaultPayloadConverter.fromPayload(payload));
}

const kb = (bytes: number) => `${Math.round(bytes / 1024)} KB`;

const tracing = process.argv.includes('--traced')
  ? startTracing({}, 'bench', { spanProcessor: new NoopSpanProcessor() })
  : undefined;
Runtime.install({ logger: new DefaultLogger('WARN') });
const cliPath = await resolveTemporalCli({ explicitPath: process.env.TEMPORAL_CLI_PATH });
const [server, bundlePath] = await Promise.all([
  startDevServer({ cliPath }),
  ensureWorkflowBundle(undefined, undefined, { tracing: tracing !== undefined }),
]);
const dataConverter = platformDataConverter({ PAYLOAD_CODEC_KEYS: [] });
const client = new Client({
  connection: await Connection.connect({ address: server.address }),
  dataConverter,
  interceptors: { workflow: tracing ? [new OpenTelemetryWorkflowClientInterceptor()] : [] },
});
const connection = await NativeConnection.connect({ address: server.address });

console.log(`Workflow bundle: ${kb(statSync(bundlePath).size)} (${path.basename(bundlePath)})`);
console.log(`Memory per cached workflow (${PER_KIND} of each kind held in one worker's cache):`);
try {
  for (const kind of KINDS) {
    const taskQueue = `memory-probe-${kind}`;
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: { codePath: bundlePath },
      dataConverter,
      debugMode: true,
      maxCachedWorkflows: PER_KIND + 10,
      ...(tracing ? { sinks: { exporter: workflowSpanExporter(tracing) } } : {}),
    });
    const args = recordedArgs(kind);
    const start = (id: string) =>
      client.workflow.start(kind, { taskQueue, workflowId: `${taskQueue}-${id}`, args });
    await worker.runUntil(async () => {
      const cached = async (count: number) => {
        while (worker.getStatus().numCachedWorkflows < count) await new Promise((r) => setTimeout(r, 50));
      };
      // One workflow first: the shared context and the bundle's modules are loaded before the baseline.
      await start('warm-up');
      await cached(1);
      const before = heapUsed();
      for (let i = 0; i < PER_KIND; i += 25)
        await Promise.all(Array.from({ length: Math.min(25, PER_KIND - i) }, (_, j) => start(String(i + j))));
      await cached(PER_KIND + 1);
      const after = heapUsed();
      console.log(`  ${kind.padEnd(22)} ${kb((after - before) / PER_KIND).padStart(8)} per workflow`);
    });
  }
} finally {
  await connection.close();
  await client.connection.close();
  await server.stop();
}
