import { startTemporalServer } from '../platform/temporal-server.ts';

/**
 * `npm run temporal:postgres`: a real Temporal server (not the dev server) on the PostgreSQL server of
 * TEMPORAL_POSTGRES_URL (else DATABASE_URL), databases `temporal` and `temporal_visibility` (prefix:
 * TEMPORAL_DATABASE_PREFIX), frontend on TEMPORAL_PORT (default 7233). Built with Go on first use.
 * Point the platform at it with TEMPORAL_EMBEDDED=false TEMPORAL_ADDRESS=127.0.0.1:<port>.
 */
const databaseUrl = process.env.TEMPORAL_POSTGRES_URL ?? process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error(
    'Set TEMPORAL_POSTGRES_URL or DATABASE_URL to a PostgreSQL server (a user that may create databases).',
  );
  process.exit(2);
}
const server = await startTemporalServer({
  databaseUrl,
  databasePrefix: process.env.TEMPORAL_DATABASE_PREFIX,
  port: Number(process.env.TEMPORAL_PORT ?? 7233),
  log: (line) => console.log(line),
});
console.log(`Temporal server running at ${server.address}. Press Ctrl-C to stop.`);
const stop = () => void server.stop().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
