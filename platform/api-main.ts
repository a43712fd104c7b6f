import { openDatabase } from '../db/client.ts';
import { loadConfigOrExit, requireDatabaseUrl } from './config.ts';
import { createLogger } from './logger.ts';
import { connectTemporal, serveApi } from './runtime.ts';

/** `npm run api`: a stateless API process for scale-out (any number, behind a load balancer). */
const config = loadConfigOrExit();
const logger = createLogger(config.LOG_LEVEL, { process: 'api' });
const database = await openDatabase({
  url: requireDatabaseUrl(config, 'npm run api'),
  poolSize: config.DATABASE_POOL_SIZE,
});
const temporal = await connectTemporal(config, logger);
const api = await serveApi({ config, db: database.db, client: temporal.client, logger });
logger.info({ url: api.url }, 'API listening');

const stop = async () => {
  await api.stop();
  await temporal.close();
  await database.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
