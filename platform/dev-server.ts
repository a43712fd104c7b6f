import { type ChildProcess, spawn } from 'node:child_process';
import { Connection } from '@temporalio/client';
import { platformSearchAttributes } from '../domain/search-attributes.ts';
import { freePort, waitForPort } from './net.ts';

export interface DevServerOptions {
  cliPath: string;
  /** SQLite file that keeps workflows across restarts; in-memory when absent (tests). */
  dbFile?: string;
  port?: number;
  /** SQLite pragmas of a persisted server; defaults to the throughput settings below (benchmarks vary them). */
  sqlitePragmas?: string[];
  /** Web UI port; `false` runs headless. */
  uiPort?: number | false;
  namespace?: string;
  log?: (line: string) => void;
}

export interface DevServer {
  address: string;
  uiUrl: string | undefined;
  stop(): Promise<void>;
}

/**
 * SQLite settings for a persisted dev server. WAL with synchronous=off gives ~2.6x the workflow
 * throughput of the defaults on 2 cores (`npm run bench:sqlite`: 8.4/s -> 21.6/s); the trade is that a
 * power loss (not a process crash) may lose the last writes. Fine for the embedded stack only.
 */
export const SQLITE_THROUGHPUT_PRAGMAS = ['journal_mode=wal', 'synchronous=off'];

/** Starts `temporal server start-dev` with the platform's search attributes and waits until it serves. */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const port = options.port ?? (await freePort());
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--namespace',
    options.namespace ?? 'default',
    '--log-level',
    'warn',
  ];
  if (options.uiPort === false || options.uiPort === undefined) args.push('--headless');
  else args.push('--ui-port', String(options.uiPort));
  if (options.dbFile) {
    args.push('--db-filename', options.dbFile);
    for (const pragma of options.sqlitePragmas ?? SQLITE_THROUGHPUT_PRAGMAS)
      args.push('--sqlite-pragma', pragma);
  }
  for (const key of platformSearchAttributes) args.push('--search-attribute', `${key.name}=Keyword`);

  const child: ChildProcess = spawn(options.cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Never leave the server behind when this process ends without stopping it (e.g. a crash).
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const address = `127.0.0.1:${port}`;
  const ready = (async () => {
    await waitForPort('127.0.0.1', port, 60_000);
    // The frontend accepts connections a moment before the namespace is ready.
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        const connection = await Connection.connect({ address });
        try {
          await connection.workflowService.describeNamespace({ namespace: options.namespace ?? 'default' });
          return;
        } finally {
          await connection.close();
        }
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  })();
  const outcome = await Promise.race([
    ready.then(() => 'ready' as const),
    exited.then(() => 'exited' as const),
  ]);
  if (outcome === 'exited') {
    throw new Error(`temporal server start-dev exited before it was ready:\n${output}`);
  }
  return {
    address,
    uiUrl: typeof options.uiPort === 'number' ? `http://127.0.0.1:${options.uiPort}` : undefined,
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
