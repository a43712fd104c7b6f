import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../platform/net.ts';

/**
 * A PostgreSQL server of a test's own (fault tests stop, hang and restart it; the suite's server is
 * left alone): `initdb` into a temporary folder from the Debian PostgreSQL binaries
 * (/usr/lib/postgresql/<newest>/bin), on a free loopback port, its unix socket in that folder, trust
 * authentication. initdb refuses to run as root: as root, the server runs as the `postgres` user
 * (`runuser`) in a folder owned by it.
 */
export interface OwnPostgres {
  /** postgres.js URL of its `postgres` database. */
  url: string;
  port: number;
  start(): Promise<void>;
  /** A fast shutdown (connections closed, no crash recovery needed at the next start). */
  stop(): Promise<void>;
  /** SIGSTOP / SIGCONT of the postmaster and its children: a server that hangs without refusing. */
  freeze(): void;
  thaw(): void;
  /** Stops it and removes its folder. */
  destroy(): Promise<void>;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((version) => existsSync(path.join(root, version, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions[0]) throw new Error(`no PostgreSQL binaries under ${root} (apt-get install postgresql)`);
  return path.join(root, versions[0], 'bin');
}

/** Whether this machine can run a PostgreSQL server of a test's own. */
export function canRunOwnPostgres(): boolean {
  try {
    binDir();
    return process.getuid?.() !== 0 || spawnSync('id', ['-u', 'postgres']).status === 0;
  } catch {
    return false;
  }
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = binDir();
  const folder = mkdtempSync(path.join(tmpdir(), 'own-postgres-'));
  const data = path.join(folder, 'data');
  const log = path.join(folder, 'server.log');
  const root = process.getuid?.() === 0;
  let user = process.env.USER ?? 'postgres';
  if (root) {
    user = 'postgres';
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(folder, uid, gid);
  }
  const run = (command: string, args: string[]) => {
    const [file, argv] = root
      ? ['runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args]]
      : [path.join(bin, command), args];
    const result = spawnSync(file, argv, { encoding: 'utf8', cwd: folder });
    if (result.status !== 0)
      throw new Error(`${command} failed (${result.status}): ${result.stderr}${result.stdout}`);
  };
  run('initdb', ['-D', data, '-A', 'trust', '-U', user, '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const options = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
  const pidOf = () => Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const signalAll = (signal: NodeJS.Signals) => {
    const pid = pidOf();
    // The postmaster and its backends: every process whose parent is the postmaster.
    const children = spawnSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter(Boolean)
      .map(Number);
    for (const target of [pid, ...children]) {
      try {
        process.kill(target, signal);
      } catch {}
    }
  };
  const server: OwnPostgres = {
    url: `postgres://${user}@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      run('pg_ctl', ['-D', data, '-o', options, '-l', log, '-w', '-t', '30', 'start']);
    },
    async stop() {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']);
    },
    freeze: () => signalAll('SIGSTOP'),
    thaw: () => signalAll('SIGCONT'),
    async destroy() {
      if (existsSync(path.join(data, 'postmaster.pid'))) {
        server.thaw();
        await server.stop().catch(() => {});
      }
      rmSync(folder, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
