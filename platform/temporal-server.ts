import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common';
import postgres from 'postgres';
import { findGo, goInstall, isExecutable, platformCacheDir } from './go-install.ts';
import { freePort, waitForPort } from './net.ts';

/**
 * A production-like Temporal server without Docker: the Temporal server itself (not the CLI's dev
 * server) on PostgreSQL, built with `go install` (shared/ARCHITECTURE.md). The binaries and the
 * PostgreSQL schema files are kept in the per-user cache beside the CLI's (platform/temporal-cli.ts),
 * so the build (minutes) happens once per machine. This is the topology docker-compose.yml describes;
 * `npm run temporal:postgres` runs it, `npm run bench -- --temporal=postgres` measures against it.
 */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';

export function temporalServerCacheDir(): string {
  return platformCacheDir(`temporal-server-${TEMPORAL_SERVER_VERSION}`);
}

export interface TemporalServerBinaries {
  server: string;
  sqlTool: string;
  /** schema/postgresql/v12 of the server module: `temporal/` and `visibility/`. */
  schemaDir: string;
}

/** The server and schema tool binaries, built with Go into the cache on first use (~5-10 min on 2 cores). */
export async function resolveTemporalServer(
  log: (line: string) => void = console.error,
): Promise<TemporalServerBinaries> {
  const dir = temporalServerCacheDir();
  const binaries = {
    server: path.join(dir, 'server'),
    sqlTool: path.join(dir, 'sql'),
    schemaDir: path.join(dir, 'schema', 'postgresql', 'v12'),
  };
  if (isExecutable(binaries.server) && isExecutable(binaries.sqlTool) && existsSync(binaries.schemaDir))
    return binaries;

  const what = `the Temporal server ${TEMPORAL_SERVER_VERSION}`;
  const go = findGo(what);
  const module = 'go.temporal.io/server';
  await goInstall({
    go,
    dir,
    what,
    log,
    isBuilt: () => isExecutable(binaries.server) && isExecutable(binaries.sqlTool),
    packages: [
      `${module}/cmd/server@${TEMPORAL_SERVER_VERSION}`,
      `${module}/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`,
    ],
  });
  // The schema files are not in the binaries: copy them out of the module cache beside them.
  const modCache = spawnSync(go, ['env', 'GOMODCACHE'], { encoding: 'utf8' }).stdout.trim();
  const source = path.join(modCache, `${module}@${TEMPORAL_SERVER_VERSION}`, 'schema', 'postgresql', 'v12');
  cpSync(source, binaries.schemaDir, { recursive: true });
  return binaries;
}

export interface TemporalServerOptions {
  /** A PostgreSQL server URL with a user that may create databases; the path part is ignored. */
  databaseUrl: string;
  /** Names the two databases `<prefix>` and `<prefix>_visibility` (default `temporal`). */
  databasePrefix?: string;
  /** Frontend gRPC port; a free one when absent. */
  port?: number;
  /** Where the generated configuration lives (default: a folder in the cache named after the port). */
  rootDir?: string;
  numHistoryShards?: number;
  namespace?: string;
  log?: (line: string) => void;
  /**
   * Runs the server in a process group of its own, so that a terminal's Ctrl-C reaches only the
   * process that started it, which stops it in order (`npm run stack`).
   */
  detached?: boolean;
}

export interface TemporalServer {
  address: string;
  pid: number;
  /** Settles when the server process exits (a crash as well as stop()), with its last output. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
  stop(): Promise<void>;
}

/** Creates or upgrades the two databases' schema with the server's own tool (idempotent). */
async function prepareSchema(
  binaries: TemporalServerBinaries,
  url: URL,
  prefix: string,
  log: (line: string) => void,
) {
  const admin = postgres(url.toString(), { max: 1, onnotice: () => {} });
  try {
    for (const [database, schema] of [
      [prefix, 'temporal'],
      [`${prefix}_visibility`, 'visibility'],
    ] as const) {
      const tool = (...args: string[]) => {
        const result = spawnSync(
          binaries.sqlTool,
          [
            '--plugin',
            'postgres12',
            '--ep',
            url.hostname,
            '-p',
            url.port || '5432',
            '-u',
            decodeURIComponent(url.username),
            '--pw',
            decodeURIComponent(url.password),
            '--db',
            database,
            ...args,
          ],
          { encoding: 'utf8' },
        );
        if (result.status !== 0)
          throw new Error(`temporal-sql-tool ${args[0]} failed:\n${result.stderr}${result.stdout}`);
      };
      const [exists] = await admin`select 1 from pg_database where datname = ${database}`;
      if (!exists) {
        log(`Creating database ${database} with Temporal's ${schema} schema...`);
        tool('create-database');
        tool('setup-schema', '-v', '0.0');
      }
      tool('update-schema', '-d', path.join(binaries.schemaDir, schema, 'versioned'));
    }
  } finally {
    await admin.end();
  }
}

function configYaml(options: {
  url: URL;
  prefix: string;
  shards: number;
  ports: Record<'frontend' | 'frontendHttp' | 'history' | 'matching' | 'worker', number>;
  membership: Record<'frontend' | 'history' | 'matching' | 'worker', number>;
  dynamicConfigFile: string;
}): string {
  const { url, prefix, ports, membership } = options;
  const store = (database: string, maxConns: number) => `      sql:
        pluginName: "postgres12"
        databaseName: "${database}"
        connectAddr: "${url.hostname}:${url.port || '5432'}"
        connectProtocol: "tcp"
        user: ${JSON.stringify(decodeURIComponent(url.username))}
        password: ${JSON.stringify(decodeURIComponent(url.password))}
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: "1h"`;
  const service = (name: keyof typeof membership, extra = '') => `  ${name}:
    rpc:
      grpcPort: ${ports[name]}
      membershipPort: ${membership[name]}
      bindOnLocalHost: true${extra}`;
  return `log:
  stdout: true
  level: warn
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: ${options.shards}
  datastores:
    postgres-default:
${store(prefix, 20)}
    postgres-visibility:
${store(`${prefix}_visibility`, 4)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "127.0.0.1"
services:
${service('frontend', `\n      httpPort: ${ports.frontendHttp}`)}
${service('matching')}
${service('history')}
${service('worker')}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: "active"
  currentClusterName: "active"
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: "frontend"
      rpcAddress: "127.0.0.1:${ports.frontend}"
dcRedirectionPolicy:
  policy: "noop"
dynamicConfigClient:
  filepath: ${JSON.stringify(options.dynamicConfigFile)}
  pollInterval: "10s"
`;
}

/** A free loopback port below 32768: the server stores membership ports in a smallint column. */
async function freeMembershipPort(): Promise<number> {
  for (;;) {
    const port = randomInt(16_000, 32_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/** Starts the Temporal server on PostgreSQL and waits until its namespace serves. */
export async function startTemporalServer(options: TemporalServerOptions): Promise<TemporalServer> {
  const log = options.log ?? console.error;
  const binaries = await resolveTemporalServer(log);
  const url = new URL(options.databaseUrl);
  const prefix = options.databasePrefix ?? 'temporal';
  if (!/^[a-z_][a-z0-9_]*$/.test(prefix))
    throw new Error(`database prefix ${prefix}: letters, digits and _ only`);
  await prepareSchema(binaries, url, prefix, log);

  const port = options.port ?? (await freePort());
  const ports = {
    frontend: port,
    frontendHttp: await freePort(),
    history: await freePort(),
    matching: await freePort(),
    worker: await freePort(),
  };
  const membership = {
    frontend: await freeMembershipPort(),
    history: await freeMembershipPort(),
    matching: await freeMembershipPort(),
    worker: await freeMembershipPort(),
  };
  const rootDir = options.rootDir ?? path.join(temporalServerCacheDir(), 'run', String(port));
  mkdirSync(path.join(rootDir, 'config'), { recursive: true, mode: 0o700 });
  writeFileSync(
    path.join(rootDir, 'config', 'development.yaml'),
    configYaml({
      url,
      prefix,
      shards: options.numHistoryShards ?? 4,
      ports,
      membership,
      dynamicConfigFile: path.join(rootDir, 'config', 'dynamicconfig.yaml'),
    }),
    { mode: 0o600 },
  );
  // Workflow Update and Update-with-Start are on by default in 1.29; the cache refresh makes a search
  // attribute registered a moment ago usable at once, as on the dev server.
  writeFileSync(
    path.join(rootDir, 'config', 'dynamicconfig.yaml'),
    'system.forceSearchAttributesCacheRefreshOnRead:\n  - value: true\n    constraints: {}\n',
    { mode: 0o600 },
  );

  const child: ChildProcess = spawn(
    binaries.server,
    ['--root', rootDir, '--config', 'config', '--env', 'development', '--allow-no-auth', 'start'],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached ?? false },
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>(
    (resolve) => child.once('exit', (code, signal) => resolve({ code, signal, output })),
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const address = `127.0.0.1:${port}`;
  const namespace = options.namespace ?? 'default';
  const ready = (async () => {
    await waitForPort('127.0.0.1', port, 120_000);
    const deadline = Date.now() + 120_000;
    for (;;) {
      try {
        const connection = await Connection.connect({ address });
        try {
          try {
            await connection.workflowService.describeNamespace({ namespace });
          } catch {
            // A fresh database has no namespace yet: register it (one day of retention).
            await connection.workflowService.registerNamespace({
              namespace,
              workflowExecutionRetentionPeriod: msToTs('1 day'),
            });
            continue;
          }
          return;
        } finally {
          await connection.close();
        }
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  })();
  const outcome = await Promise.race([
    ready.then(() => 'ready' as const),
    exited.then(() => 'exited' as const),
  ]);
  if (outcome === 'exited') throw new Error(`the Temporal server exited before it was ready:\n${output}`);
  log(
    `Temporal server ${TEMPORAL_SERVER_VERSION} on PostgreSQL (${prefix}, ${prefix}_visibility) at ${address}`,
  );
  return {
    address,
    pid: child.pid!,
    exited,
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
      // The generated configuration of this start only (it names the ports); a given rootDir is kept.
      if (!options.rootDir) rmSync(rootDir, { recursive: true, force: true });
    },
  };
}
