import { openDatabase } from '../db/client.ts';
import { loadConfigOrExit } from './config.ts';
import { createConnectors } from './connectors.ts';
import { createLogger } from './logger.ts';
import { connectTemporal, runWorker } from './runtime.ts';
import { ensureWorkflowBundle } from './workflow-bundle.ts';

/** `npm run worker`: a worker process for scale-out; runs every workflow and activity of the platform. */
const config = loadConfigOrExit();
const logger = createLogger(config.LOG_LEVEL, { process: 'worker' });
if (!config.DATABASE_URL) {
  console.error(
    'DATABASE_URL: required for `npm run worker` (PGlite is single-process; use `npm start` for it)',
  );
  process.exit(78);
}
const database = await openDatabase({ url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
const temporal = await connectTemporal(config);
const connectors = createConnectors(config, logger);
const worker = await runWorker({
  config,
  db: database.db,
  client: temporal.client,
  connectors,
  logger,
  workflowBundlePath: await ensureWorkflowBundle(),
});
logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, temporal: config.TEMPORAL_ADDRESS }, 'worker running');

const stop = async () => {
  await worker.stop();
  await connectors.carrier.close();
  await temporal.close();
  await database.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
