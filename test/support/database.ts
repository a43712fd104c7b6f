import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { dumpRows } from '../upgrade/rows.ts';
import { DEFAULT_TEST_DATABASE_URL } from './embedded-postgres.ts';

/**
 * The PostgreSQL server the suite runs against; each test file gets a database of its own on it.
 * DATABASE_URL is the embedded server's when the suite started one (test/support/global-setup.ts).
 */
export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? DEFAULT_TEST_DATABASE_URL;

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      // Recording upgrade fixtures (test/upgrade/README.md): every table's rows, before the database goes.
      if (process.env.RECORD_ROWS_DIR) {
        mkdirSync(process.env.RECORD_ROWS_DIR, { recursive: true });
        writeFileSync(path.join(process.env.RECORD_ROWS_DIR, `${name}.json`), await dumpRows(url.toString()));
      }
      const cleanup = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
      try {
        await cleanup.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await cleanup.end();
      }
    },
  };
}
