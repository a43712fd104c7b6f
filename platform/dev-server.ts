import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { platformSearchAttributes } from '../domain/search-attributes.ts';
import { restrictToOwner, writePrivateFile } from './data-dir.ts';
import { freePort, waitForPort } from './net.ts';

export interface DevServerOptions {
  cliPath: string;
  /** SQLite file that keeps workflows across restarts; in-memory when absent (tests). */
  dbFile?: string;
  port?: number;
  /** SQLite pragmas of a persisted server; defaults to the throughput settings below (benchmarks vary them). */
  sqlitePragmas?: string[];
  /**
   * Dynamic config of the server (`--dynamic-config-value key=<JSON value>`), e.g. a test's low
   * `{ 'history.maxInFlightUpdates': 1 }`; none by default.
   */
  dynamicConfig?: Record<string, string | number | boolean>;
  /** Web UI port; `false` runs headless. */
  uiPort?: number | false;
  /** The codec server the Web UI decodes payloads through (`<api>/codec`, api/admin/codec.ts). */
  uiCodecEndpoint?: string | undefined;
  namespace?: string;
  log?: (line: string) => void;
  /**
   * A file naming the running server (JSON: `pid`, and `parentPid`, the process that started it), so
   * that a start after a crash recognises the server the dead process left behind (SIGKILL does not
   * reach the child, which keeps its port) and stops it first. Removed on a clean stop.
   */
  pidFile?: string;
}

export interface DevServer {
  address: string;
  /** The server's process (the shell execs it, so the same pid with a data file). */
  pid: number | undefined;
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
  // Absolute, so that the server's command line names its data file wherever it was started from.
  const dbFile = options.dbFile ? path.resolve(options.dbFile) : undefined;
  const pidFile = options.pidFile;
  const stoppedLeftover = pidFile
    ? await stopLeftoverDevServer(pidFile, { dbFile, port, log: options.log })
    : false;
  // A stopped server may still be closing its sockets: /proc shows it gone (its memory released first)
  // a moment before its files are closed.
  if (stoppedLeftover) await waitUntilRefused('127.0.0.1', port, 10_000);
  // Something else on the port would answer our readiness probes before our server fails to bind it.
  if (await accepts('127.0.0.1', port)) {
    throw new Error(
      `127.0.0.1:${port} is already in use; stop what listens there or choose another TEMPORAL_ADDRESS port`,
    );
  }
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
  if (options.uiCodecEndpoint && options.uiPort) args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
  if (dbFile) {
    args.push('--db-filename', dbFile);
    for (const pragma of options.sqlitePragmas ?? SQLITE_THROUGHPUT_PRAGMAS)
      args.push('--sqlite-pragma', pragma);
  }
  for (const key of platformSearchAttributes) args.push('--search-attribute', `${key.name}=Keyword`);
  for (const [key, value] of Object.entries(options.dynamicConfig ?? {}))
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);

  // The SQLite files hold every workflow's history: readable by their owner only. Files of an older
  // start are tightened; the server creates new ones (and SQLite its WAL and SHM files) under umask 077,
  // set by a shell that then becomes the server (exec: same pid, the server's own command line).
  if (dbFile) for (const suffix of ['', '-wal', '-shm', '-journal']) restrictToOwner(`${dbFile}${suffix}`);
  const child: ChildProcess = dbFile
    ? spawn('/bin/sh', ['-c', 'umask 077 && exec "$0" "$@"', options.cliPath, ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(options.cliPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const forgetPid = () => {
    if (pidFile && child.pid !== undefined && readPidFile(pidFile)?.pid === child.pid) removeFile(pidFile);
  };
  if (pidFile && child.pid !== undefined) {
    writePrivateFile(pidFile, `${JSON.stringify({ pid: child.pid, parentPid: process.pid })}\n`);
  }
  // Never leave the server behind when this process ends without stopping it (an uncaught error; a
  // SIGKILL runs nothing, which is what the pid file is for).
  const killOnExit = () => {
    child.kill('SIGKILL');
    forgetPid();
  };
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
    process.off('exit', killOnExit);
    forgetPid();
    throw new Error(`temporal server start-dev exited before it was ready:\n${output}`);
  }
  return {
    address,
    pid: child.pid,
    uiUrl: typeof options.uiPort === 'number' ? `http://127.0.0.1:${options.uiPort}` : undefined,
    async stop() {
      process.off('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      forgetPid();
    },
  };
}

/** Waits (at most timeoutMs) until nothing accepts connections on host:port any more. */
async function waitUntilRefused(host: string, port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && (await accepts(host, port)))
    await new Promise((resolve) => setTimeout(resolve, 100));
}

/** Whether something accepts TCP connections on host:port. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

interface PidFileContent {
  pid: number;
  /** The process that started the server; absent in a plain pid file. */
  parentPid?: number;
}

function readPidFile(file: string): PidFileContent | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
  try {
    const parsed = /^\d+$/.test(text) ? { pid: Number(text) } : JSON.parse(text);
    if (!Number.isSafeInteger(parsed.pid) || parsed.pid <= 1) return undefined;
    return {
      pid: parsed.pid,
      ...(Number.isSafeInteger(parsed.parentPid) ? { parentPid: parsed.parentPid } : {}),
    };
  } catch {
    return undefined;
  }
}

export interface ProcessInfo {
  parentPid: number;
  /** The state letter: 'R' running, 'S' sleeping, 'T' stopped (SIGSTOP), 'Z' zombie, … */
  state: string;
  /** Exited, not yet reaped by its parent: it holds no port any more. */
  zombie: boolean;
  args: string[];
}

/** What the OS says of a live process (/proc on Linux, `ps` elsewhere); undefined when there is none. */
export function processInfo(pid: number): ProcessInfo | undefined {
  if (existsSync('/proc/self/stat')) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (args.at(-1) === '') args.pop();
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
      const [state = '', parentPid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return { parentPid: Number(parentPid), state, zombie: state === 'Z', args };
    } catch {
      return undefined;
    }
  }
  const ps = spawnSync('ps', ['-o', 'ppid=,stat=,command=', '-p', String(pid)], { encoding: 'utf8' });
  const match = ps.status === 0 ? /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(ps.stdout.trim()) : null;
  if (!match) return undefined;
  const state = match[2]!.charAt(0);
  return { parentPid: Number(match[1]), state, zombie: state === 'Z', args: match[3]!.split(/\s+/) };
}

/** `temporal server start-dev` of this data file (or, in memory, on this port): ours, not any process. */
function isDevServerOf(info: ProcessInfo, target: { dbFile: string | undefined; port: number }): boolean {
  const { args } = info;
  const value = (flag: string) => {
    const at = args.indexOf(flag);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const startDev = args.indexOf('start-dev');
  if (startDev < 1 || args[startDev - 1] !== 'server') return false;
  return target.dbFile ? value('--db-filename') === target.dbFile : value('--port') === String(target.port);
}

const gone = (pid: number, target: { dbFile: string | undefined; port: number }) => {
  const info = processInfo(pid);
  return !info || info.zombie || !isDevServerOf(info, target);
};

async function waitUntilGone(
  pid: number,
  target: { dbFile: string | undefined; port: number },
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!gone(pid, target)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

/**
 * Before a start: the server named by `pidFile` is stopped when it is still running, is the
 * `temporal server start-dev` of this data file, and the process that started it is gone (a start that
 * was killed). A pid file naming any other process (the pid reused since) is discarded and that process
 * left alone; a server whose starter still runs is another start of the same data, and stops this one.
 * True when a server was stopped.
 */
export async function stopLeftoverDevServer(
  pidFile: string,
  target: { dbFile: string | undefined; port: number; log?: ((line: string) => void) | undefined },
): Promise<boolean> {
  if (!existsSync(pidFile)) return false;
  const log = target.log ?? (() => {});
  const recorded = readPidFile(pidFile);
  const info = recorded ? processInfo(recorded.pid) : undefined;
  if (!recorded || !info || info.zombie || !isDevServerOf(info, target)) {
    if (recorded && info && !info.zombie) {
      log(`${pidFile} names process ${recorded.pid}, which is not this Temporal dev server; left alone.`);
    }
    removeFile(pidFile);
    return false;
  }
  if (recorded.parentPid !== undefined && info.parentPid === recorded.parentPid) {
    throw new Error(
      `The Temporal dev server of ${target.dbFile ?? `port ${target.port}`} (pid ${recorded.pid}) belongs to a ` +
        `start that is still running (pid ${recorded.parentPid}); stop that one first.`,
    );
  }
  log(`Stopping the Temporal dev server left behind by an earlier start (pid ${recorded.pid})...`);
  signal(recorded.pid, 'SIGTERM');
  if (!(await waitUntilGone(recorded.pid, target, 10_000))) {
    signal(recorded.pid, 'SIGKILL');
    if (!(await waitUntilGone(recorded.pid, target, 5_000)))
      throw new Error(`The Temporal dev server left behind (pid ${recorded.pid}) did not stop.`);
  }
  removeFile(pidFile);
  return true;
}

/** Sends a signal; a process that has gone meanwhile is what was wanted. */
function signal(pid: number, name: NodeJS.Signals) {
  try {
    process.kill(pid, name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

function removeFile(file: string) {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
