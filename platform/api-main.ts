import { openDatabase } from '../db/client.ts';
import { loadConfigOrExit } from './config.ts';
import { createLogger } from './logger.ts';
import { connectTemporal, serveApi } from './runtime.ts';

/** `npm run api`: a stateless API process for scale-out (any number, behind a load balancer). */
const config = loadConfigOrExit();
const logger = createLogger(config.LOG_LEVEL, { process: 'api' });
if (!config.DATABASE_URL) {
  console.error(
    'DATABASE_URL: required for `npm run api` (PGlite is single-process; use `npm start` for it)',
  );
  process.exit(78);
}
const database = await openDatabase({ url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE });
const temporal = await connectTemporal(config);
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
