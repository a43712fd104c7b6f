import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationsFolder, openDatabase } from '../../db/client.ts';
import { readJournal } from '../../db/releases.ts';
import { createTestDatabase, type TestDatabase } from '../support/database.ts';
import { eventually } from '../support/platform.ts';

/**
 * Two processes starting together on a fresh database (an API and a worker) both migrate it: the
 * advisory lock of db/client.ts makes one wait for the other, and the schema is applied once.
 */

const MIGRATION_LOCK_KEY = 72_610_001;

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database.drop();
});

describe('migrations on start', () => {
  it('two clients migrating one fresh database wait for the lock in turn; both succeed, each migration applied once', async () => {
    const holder = postgres(database.url, { max: 1, onnotice: () => {} });
    const observer = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      // Hold the lock, so that both clients are certainly inside their start-up at the same moment.
      await holder`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
      const starting = [
        openDatabase({ url: database.url, poolSize: 1 }),
        openDatabase({ url: database.url, poolSize: 1 }),
      ];
      const waiting = await eventually(
        async () => {
          const [row] = await observer<{ n: number }[]>`
          select count(*)::int as n from pg_locks
          where locktype = 'advisory' and objid = ${MIGRATION_LOCK_KEY} and not granted
            and database = (select oid from pg_database where datname = current_database())`;
          return row?.n === 2 ? row.n : undefined;
        },
        20_000,
        'both clients waiting for the migration lock',
      );
      expect(waiting).toBe(2);
      // Nothing was migrated while the lock was held.
      const [before] = await observer<
        { exists: boolean }[]
      >`select to_regclass('drizzle.__drizzle_migrations') is not null as exists`;
      expect(before?.exists).toBe(false);
      await holder`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
      const handles = await Promise.all(starting);
      await Promise.all(handles.map((handle) => handle.close()));
      const applied = await observer<{ hash: string }[]>`select hash from drizzle.__drizzle_migrations`;
      expect(applied).toHaveLength(readJournal(migrationsFolder).entries.length);
      expect(new Set(applied.map((row) => row.hash)).size).toBe(applied.length);
      const [tables] = await observer<{ n: number }[]>`
        select count(*)::int as n from information_schema.tables where table_schema = 'public'`;
      expect(tables?.n).toBeGreaterThan(50);
    } finally {
      await holder.end();
      await observer.end();
    }
  });
});
