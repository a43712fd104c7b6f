import { openDatabase } from '../db/client.ts';
import { platformTaskQueues } from '../domain/task-queues.ts';
import { loadConfigAtStartOrExit, requireDatabaseUrl } from '../platform/config.ts';
import { createLogger } from '../platform/logger.ts';
import { serveMetrics } from '../platform/metrics.ts';
import { startTracing } from '../platform/tracing.ts';
import { ensureWorkflowBundle } from '../platform/workflow-bundle.ts';
import { connectTemporal, runWorker, stopOnSignal } from './runtime.ts';

/**
 * `npm run worker`: a worker process for scale-out; runs every workflow and activity of the platform,
 * polling both of its task queues (business and delivery, decision 0024).
 */
const config = await loadConfigAtStartOrExit();
const logger = createLogger(config.LOG_LEVEL, { process: 'worker' });
const database = await openDatabase({
  url: requireDatabaseUrl(config, 'npm run worker'),
  poolSize: config.DATABASE_POOL_SIZE,
});
const tracing = startTracing(config, 'worker');
const temporal = await connectTemporal(config, logger, { tracing });
const worker = await runWorker({
  config,
  db: database.db,
  client: temporal.client,
  logger,
  workflowBundlePath: await ensureWorkflowBundle(undefined, undefined, { tracing: tracing !== undefined }),
  tracing,
});
// The worker's metrics: the SDK's (schedule-to-start, slots, pollers), webhook outcomes, the process.
const metrics = await serveMetrics(config, logger);
logger.info(
  {
    taskQueues: platformTaskQueues(config.TEMPORAL_TASK_QUEUE),
    temporal: config.TEMPORAL_ADDRESS,
    metrics: metrics?.url,
    tracing: tracing !== undefined,
  },
  'worker running',
);

stopOnSignal([
  () => worker.stop(),
  () => metrics?.stop(),
  () => tracing?.shutdown(),
  () => temporal.close(),
  () => database.close(),
]);
