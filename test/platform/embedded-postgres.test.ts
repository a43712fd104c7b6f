import net from 'node:net';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { freePort, portAnswers } from '../../platform/net.ts';
import {
  DEFAULT_TEST_DATABASE_URL,
  existingTestDatabaseUrl,
  probeTarget,
  startEmbeddedPostgres,
} from '../support/embedded-postgres.ts';

/**
 * `npm test` on a machine without a PostgreSQL server (docs/testing.md): with DATABASE_URL unset and
 * nothing on 127.0.0.1:5432, the suite starts a real PostgreSQL from the `embedded-postgres` package.
 * This file starts one of its own, so the fallback is checked also where 5432 answers.
 */
describe('the test database fallback', () => {
  it('uses DATABASE_URL, else the server on the probe target, else none (start an embedded one)', async () => {
    const listener = net.createServer();
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const open = (listener.address() as net.AddressInfo).port;
    const closed = await freePort();
    try {
      expect(
        await existingTestDatabaseUrl({
          DATABASE_URL: 'postgres://a@b/c',
          TEST_POSTGRES_PROBE: `127.0.0.1:${closed}`,
        }),
      ).toBe('postgres://a@b/c');
      expect(await existingTestDatabaseUrl({ TEST_POSTGRES_PROBE: `127.0.0.1:${open}` })).toBe(
        DEFAULT_TEST_DATABASE_URL,
      );
      expect(await existingTestDatabaseUrl({ TEST_POSTGRES_PROBE: `127.0.0.1:${closed}` })).toBeUndefined();
    } finally {
      listener.close();
    }
    expect(probeTarget({})).toEqual({ host: '127.0.0.1', port: 5432 });
    expect(() => probeTarget({ TEST_POSTGRES_PROBE: '5432' })).toThrow(/TEST_POSTGRES_PROBE/);
  });

  it('starts a real PostgreSQL whose user may create databases, and stops it', async () => {
    const server = await startEmbeddedPostgres();
    const port = Number(new URL(server.url).port);
    try {
      const sql = postgres(server.url, { max: 1, onnotice: () => {} });
      try {
        const [row] = await sql`select current_setting('server_version_num')::int as version,
          (select rolsuper from pg_roles where rolname = current_user) as superuser`;
        expect(row?.version).toBeGreaterThanOrEqual(150_000);
        expect(row?.superuser).toBe(true);
        await sql.unsafe('create database fallback_check');
        await sql.unsafe('drop database fallback_check');
      } finally {
        await sql.end();
      }
    } finally {
      await server.stop();
    }
    expect(await portAnswers('127.0.0.1', port)).toBe(false);
  });
});
