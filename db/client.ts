import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareDataDir, restrictToOwner } from '../platform/data-dir.ts';
import { takeLock } from '../platform/process-lock.ts';
import type { Database } from './database.ts';
import { registerListen } from './notifications.ts';
import { installQueryErrorRedaction } from './query-errors.ts';
import * as schema from './schema/index.ts';

export type { Database } from './database.ts';
export { schema };

export interface DatabaseHandle {
  db: Database;
  /** `postgres` (postgres.js against a server) or `pglite` (embedded, in a data folder). */
  driver: 'postgres' | 'pglite';
  close(): Promise<void>;
}

/** The lock file of a PGlite folder: beside it (PGlite's own folder holds only its files). */
export const pgliteLockFile = (pgliteDir: string) => `${path.resolve(pgliteDir)}.lock`;

export const migrationsFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Arbitrary constant naming the platform's migration lock. */
const MIGRATION_LOCK_KEY = 72_610_001;

export interface DatabaseOptions {
  /** PostgreSQL URL; when absent, PGlite stores its files in `pgliteDir`. */
  url?: string | undefined;
  pgliteDir?: string;
  poolSize?: number;
}

/** Opens the database and applies pending migrations. */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  // No error of a query carries its values into logs or workflow histories (db/query-errors.ts).
  installQueryErrorRedaction();
  if (options.url) {
    const { default: postgres } = await import('postgres');
    const { drizzle } = await import('drizzle-orm/postgres-js');
    const { migrate } = await import('drizzle-orm/postgres-js/migrator');
    // API and worker processes may start together: one migrates at a time, under an advisory lock.
    const migrator = postgres(options.url, { max: 1, onnotice: () => {} });
    try {
      await migrator`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
      await migrate(drizzle(migrator), { migrationsFolder });
      await migrator`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
    } finally {
      await migrator.end();
    }
    const sql = postgres(options.url, { max: options.poolSize ?? 10, onnotice: () => {} });
    const db = drizzle(sql, { schema });
    // postgres.js keeps one extra connection for LISTEN, opened on first use and re-listened after a drop.
    registerListen(db, async (channel, onPayload, onListening) => {
      await sql.listen(channel, onPayload, onListening);
    });
    return { db, driver: 'postgres', close: () => sql.end({ timeout: 5 }) };
  }
  if (!options.pgliteDir) throw new Error('openDatabase needs either a PostgreSQL url or a pgliteDir');
  // The database files are readable by their owner only: the folder is 0700 (which alone keeps other
  // users out) and what an older start left readable is tightened; `npm start` runs under umask 077.
  prepareDataDir(options.pgliteDir);
  restrictToOwner(options.pgliteDir);
  // One writer per PGlite folder (decision 0080): each PGlite keeps its own buffers and WAL position, so a
  // second one on the same files is never seen by the first and can lose data. A second opener fails now.
  const lock = takeLock(pgliteLockFile(options.pgliteDir), `The embedded database in ${options.pgliteDir}`);
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  let client: InstanceType<typeof PGlite>;
  try {
    client = new PGlite(options.pgliteDir);
    await migrate(drizzle(client, { schema }), { migrationsFolder });
  } catch (error) {
    lock.release();
    throw error;
  }
  const db = drizzle(client, { schema });
  // One process owns a PGlite database: its notifications never leave it, and it never reconnects.
  registerListen(db, async (channel, onPayload, onListening) => {
    await client.listen(channel, onPayload);
    onListening();
  });
  // PGlite wrote its files with the process's umask; the folder's 0700 guards what it writes later.
  restrictToOwner(options.pgliteDir);
  return {
    db,
    driver: 'pglite',
    close: async () => {
      try {
        await client.close();
      } finally {
        lock.release();
      }
    },
  };
}
