import { openDatabase } from '../db/client.ts';
import { loadConfigAtStartOrExit, requireDatabaseUrl } from '../platform/config.ts';
import { createLogger } from '../platform/logger.ts';
import { serveMetrics } from '../platform/metrics.ts';
import { startTracing } from '../platform/tracing.ts';
import { connectTemporal, serveApi, stopOnSignal } from './runtime.ts';

/** `npm run api`: a stateless API process for scale-out (any number, behind a load balancer). */
const config = await loadConfigAtStartOrExit();
const logger = createLogger(config.LOG_LEVEL, { process: 'api' });
const database = await openDatabase({
  url: requireDatabaseUrl(config, 'npm run api'),
  poolSize: config.DATABASE_POOL_SIZE,
});
const tracing = startTracing(config, 'api');
const temporal = await connectTemporal(config, logger, { tracing });
const api = await serveApi({ config, db: database.db, client: temporal.client, logger });
const metrics = await serveMetrics(config, logger);
logger.info({ url: api.url, metrics: metrics?.url, tracing: tracing !== undefined }, 'API listening');

stopOnSignal([
  () => api.stop(),
  () => metrics?.stop(),
  () => tracing?.shutdown(),
  () => temporal.close(),
  () => database.close(),
]);
