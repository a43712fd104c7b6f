import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Client, Connection, type WorkflowClientInterceptor } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import {
  DefaultLogger,
  type LogLevel,
  MetricsBuffer,
  NativeConnection,
  Runtime,
  type Worker,
} from '@temporalio/worker';
import { answerClientErrors, createApp } from '../api/app.ts';
import { messaging } from '../application/messaging/index.ts';
import { isUpdateNotTakenYet } from '../application/shared/engine-busy.ts';
import type { Database } from '../db/client.ts';
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import { platformMetrics } from '../platform/metrics.ts';
import { platformDataConverter } from '../platform/payload-codec.ts';
import { ensureSearchAttributes } from '../platform/search-attributes.ts';
import type { Tracing } from '../platform/tracing.ts';
import { createReadinessProbe } from './readiness.ts';
import type { PlatformServiceModule } from './service.ts';
import { platformServices } from './services.ts';
import { createPlatformWorkers, isWaitingFailure, mergeActivities } from './worker.ts';

/** The pieces each process assembles: shared by `npm start`, `npm run api`, `npm run worker` and tests. */

export interface TemporalHandle {
  client: Client;
  /**
   * The client's connection when it is native (`eagerStart`): a worker in the same process runs on it,
   * so that the server may hand a new workflow's first task straight back to that worker.
   */
  connection?: NativeConnection;
  close(): Promise<void>;
}

/**
 * Every workflow start asks for eager execution (issue 24: one round trip per create): with a worker
 * of the task queue on the same native connection and a free slot, the server answers the start with the
 * workflow's first task, which that worker runs at once instead of polling for it. Without a local
 * worker (`npm run api` alone) the server starts the workflow as usual.
 */
const eagerStarts: WorkflowClientInterceptor = {
  start: (input, next) => next({ ...input, options: { ...input.options, requestEagerStart: true } }),
};

/**
 * The server takes at most 10 Updates in flight per workflow (`history.maxInFlightUpdates`); an eleventh is
 * refused with RESOURCE_EXHAUSTED, and the SDK's own retries (5, quick) run out under load (50 concurrent
 * bids on one loan). Such an Update is sent again with backoff, 50 ms doubling to 1 s, jittered, for up
 * to TEMPORAL_UPDATE_QUEUE_TIMEOUT (30 s): concurrent callers queue instead of failing. So is an Update
 * the server aborted for its registry being cleared (the same Update id: taken once). Past the timeout
 * the refusal is thrown, and the facade answers it 503 `process_busy` with a Retry-After (decision 0085).
 */
function updateCapacity(queueTimeoutMs: number): WorkflowClientInterceptor {
  async function withUpdateCapacity<T>(send: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + queueTimeoutMs;
    for (let delay = 50; ; delay = Math.min(1_000, delay * 2)) {
      try {
        return await send();
      } catch (error) {
        if (!isUpdateNotTakenYet(error) || Date.now() >= deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, delay / 2 + Math.random() * delay));
      }
    }
  }
  return {
    startUpdate: (input, next) => withUpdateCapacity(() => next(input)),
    startUpdateWithStart: (input, next) => withUpdateCapacity(() => next(input)),
  };
}

/**
 * The client of a process. `eagerStart` (a process that also runs the workers: `npm start`, tests,
 * the benchmark stack) connects natively and requests eager starts; otherwise a gRPC connection.
 */
export async function connectTemporal(
  config: Config,
  logger: Logger,
  options: { eagerStart?: boolean; tracing?: Tracing } = {},
): Promise<TemporalHandle> {
  const clientOptions = {
    namespace: config.TEMPORAL_NAMESPACE,
    dataConverter: platformDataConverter(config),
  };
  // With tracing, a start, signal or update continues the request's trace into the workflow (its
  // context travels in the Temporal headers; decision 0059).
  const traced: WorkflowClientInterceptor[] = options.tracing
    ? [new OpenTelemetryWorkflowClientInterceptor()]
    : [];
  const queued = updateCapacity(config.TEMPORAL_UPDATE_QUEUE_TIMEOUT);
  if (options.eagerStart) {
    // The SDK's runtime is installed once, before its first native connection.
    installTemporalRuntime(logger);
    const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
    await ensureSearchAttributes(connection, config.TEMPORAL_NAMESPACE, logger);
    const client = new Client({
      connection,
      ...clientOptions,
      interceptors: { workflow: [...traced, queued, eagerStarts] },
    });
    return { client, connection, close: () => connection.close() };
  }
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  await ensureSearchAttributes(connection, config.TEMPORAL_NAMESPACE, logger);
  const client = new Client({
    connection,
    ...clientOptions,
    interceptors: { workflow: [...traced, queued] },
  });
  return { client, close: () => connection.close() };
}

const PINO_LEVEL: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
};

/**
 * Routes the Temporal SDK's own log lines (worker state, workflow and activity logs) into our JSON
 * log, and its metrics (Core's worker metrics: schedule-to-start latencies, slots, pollers, the sticky
 * cache) into this process's Prometheus registry (platform/metrics.ts, decision 0059). The runtime is
 * process-wide and can be installed once, before the first worker.
 */
function installTemporalRuntime(logger: Logger): void {
  if (Runtime._instance) return;
  const buffer = new MetricsBuffer({ useSecondsForDurations: true });
  Runtime.install({
    telemetryOptions: { metrics: { buffer, attachServiceName: false } },
    logger: new DefaultLogger('INFO', (entry) => {
      // The SDK warns of every failed activity attempt; one that is a designed wait is not a warning.
      const level = isWaitingFailure(entry.meta?.error) ? 'debug' : PINO_LEVEL[entry.level];
      logger[level]({ kind: 'temporal', ...entry.meta }, entry.message);
    }),
  });
  platformMetrics().readTemporalBuffer(buffer);
}

export interface RunningWorker {
  /** The business lane's worker (TEMPORAL_TASK_QUEUE). */
  worker: Worker;
  /** The delivery lane's worker (`<TEMPORAL_TASK_QUEUE>-delivery`, decision 0024). */
  deliveryWorker: Worker;
  /** Stops polling, lets running activities finish, closes the workers' connection. */
  stop(): Promise<void>;
}

/** Runs the platform's workers (both task queues) in this process, with every service's part. */
export async function runWorker(options: {
  config: Config;
  db: Database;
  client: Client;
  logger: Logger;
  workflowBundlePath: string;
  services?: readonly PlatformServiceModule[];
  /** The client's native connection (TemporalHandle.connection), shared for eager starts; not closed here. */
  connection?: NativeConnection;
  /**
   * This process's tracing (platform/tracing.ts): workflow and activity spans. The bundle must then be
   * the traced one (`ensureWorkflowBundle(..., { tracing: true })`), which holds the workflow interceptors.
   */
  tracing?: Tracing;
}): Promise<RunningWorker> {
  const { config, db, client, logger } = options;
  installTemporalRuntime(logger);
  const parts = (options.services ?? platformServices).map((service) => ({
    service: service.name,
    ...service.worker({ config, db, client, logger }),
  }));
  const shared = options.connection;
  const connection = shared ?? (await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS }));
  const workers = await createPlatformWorkers({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowBundlePath: options.workflowBundlePath,
    dataConverter: platformDataConverter(config),
    activities: mergeActivities(parts),
    logger,
    tracing: options.tracing,
  });
  const running = Promise.all([workers.business.run(), workers.delivery.run()]);
  for (const part of parts) await part.started?.();
  return {
    worker: workers.business,
    deliveryWorker: workers.delivery,
    async stop() {
      for (const worker of [workers.business, workers.delivery])
        if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      if (!shared) await connection.close();
      for (const part of parts) await part.close?.();
    },
  };
}

export interface RunningApi {
  url: string;
  stop(): Promise<void>;
}

export async function serveApi(options: {
  config: Config;
  db: Database;
  client: Client;
  logger: Logger;
}): Promise<RunningApi> {
  const { config } = options;
  const deps = { db: options.db, temporal: options.client, config, logger: options.logger };
  // Accepted messages reach their workflows through this process's hand-over (decision 0066).
  const handover = messaging.startSmsHandover(deps);
  // Every API process counts its requests (served by its metrics listener, platform/metrics.ts).
  const app = createApp(
    deps,
    createReadinessProbe({
      db: options.db,
      temporal: options.client,
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: config.TEMPORAL_TASK_QUEUE,
    }),
    platformServices,
    platformMetrics().requests,
  );
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, port: config.PORT, hostname: config.HOST }, () =>
      resolve(started),
    );
  });
  answerClientErrors(server);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${config.HOST}:${port}`,
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive connections of clients would otherwise hold the server open.
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      await handover.stop();
    },
  };
}

/**
 * On SIGINT or SIGTERM, stops a process's parts in the order given (what takes work first: the API or
 * the worker, then metrics, tracing, the Temporal connection, the database) and exits.
 */
export function stopOnSignal(parts: ReadonlyArray<() => Promise<void> | undefined>): void {
  const stop = async () => {
    for (const part of parts) await part();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}
