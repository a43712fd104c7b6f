import { migrationsFolder, openDatabase } from '../db/client.ts';
import { readJournal } from '../db/releases.ts';

/**
 * `npm run migrate` (the image's `migrate` command): applies pending migrations to DATABASE_URL and
 * exits, under the same advisory lock as every start (db/client.ts), so it may run beside starting api
 * and worker processes. Needs only DATABASE_URL: an upgrade can run before the new processes start.
 */
const url = process.env.DATABASE_URL;
if (!url) {
  console.error(
    'DATABASE_URL: required for `npm run migrate` (the embedded PGlite is migrated by `npm start`)',
  );
  process.exit(78);
}
const database = await openDatabase({ url, poolSize: 1 });
await database.close();
const last = readJournal(migrationsFolder).entries.at(-1)?.tag ?? 'none';
console.log(`database migrated (last migration: ${last})`);
