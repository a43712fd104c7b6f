import { openDatabase } from '../db/client.ts';
import { platformTaskQueues } from '../domain/task-queues.ts';
import { loadConfigOrExit, requireDatabaseUrl } from './config.ts';
import { createLogger } from './logger.ts';
import { connectTemporal, runWorker } from './runtime.ts';
import { ensureWorkflowBundle } from './workflow-bundle.ts';

/**
 * `npm run worker`: a worker process for scale-out; runs every workflow and activity of the platform,
 * polling both of its task queues (business and delivery, decision 0024).
 */
const config = loadConfigOrExit();
const logger = createLogger(config.LOG_LEVEL, { process: 'worker' });
const database = await openDatabase({
  url: requireDatabaseUrl(config, 'npm run worker'),
  poolSize: config.DATABASE_POOL_SIZE,
});
const temporal = await connectTemporal(config, logger);
const worker = await runWorker({
  config,
  db: database.db,
  client: temporal.client,
  logger,
  workflowBundlePath: await ensureWorkflowBundle(),
});
logger.info(
  { taskQueues: platformTaskQueues(config.TEMPORAL_TASK_QUEUE), temporal: config.TEMPORAL_ADDRESS },
  'worker running',
);

const stop = async () => {
  await worker.stop();
  await temporal.close();
  await database.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
