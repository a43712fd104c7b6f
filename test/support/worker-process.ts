import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onTestFailed } from 'vitest';
import { eventually } from './platform.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface WorkerProcess {
  child: ChildProcess;
  /** An API process's address (`npm run api`), read from its 'API listening' line. */
  url?: string;
  /** Its log lines (JSON), shown when a test fails. */
  output: string[];
  /** SIGKILL, as a crash: no draining, no goodbye. */
  kill(): Promise<void>;
}

/** What to start: `npm run worker` (default) or `npm run api` (its PORT from the environment given). */
const KINDS = {
  worker: { script: 'cmd/worker-main.ts', ready: '"worker running"' },
  api: { script: 'cmd/api-main.ts', ready: '"API listening"' },
  /** A worker stopping inside a local activity's crash window (test/support/crash-window-worker.ts). */
  crashWindow: { script: 'test/support/crash-window-worker.ts', ready: '"worker running"' },
} as const;

/**
 * Worker (or API) OS processes for crash tests: `node --import tsx cmd/worker-main.ts` (what `npm
 * run worker` runs) with the platform's configuration. Every process started is tracked, so a test file
 * can kill them all, and none outlives the test process.
 */

export function workerProcesses(
  platformEnv: () => Record<string, string>,
  kind: keyof typeof KINDS = 'worker',
) {
  const { script, ready } = KINDS[kind];
  const running = new Set<WorkerProcess>();
  process.on('exit', () => {
    for (const worker of running) worker.child.kill('SIGKILL');
  });

  /** Starts one; resolves once it polls its task queues. */
  async function start(env: Record<string, string> = {}): Promise<WorkerProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: root,
      env: { ...process.env, ...platformEnv(), LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const worker: WorkerProcess = {
      child,
      output,
      async kill() {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await exited;
        running.delete(worker);
      },
    };
    running.add(worker);
    onTestFailed(() => {
      console.log(`worker ${child.pid} output:\n${output.join('\n')}`);
    });
    let polling = false;
    // Lines, not chunks: a long line may arrive in two chunks.
    const partial = { stdout: '', stderr: '' };
    const collect = (stream: keyof typeof partial) => (chunk: Buffer) => {
      const lines = (partial[stream] + chunk.toString('utf8')).split('\n');
      partial[stream] = lines.pop() ?? '';
      for (const line of lines.filter(Boolean)) {
        output.push(line);
        if (line.includes(ready)) {
          polling = true;
          const url = /"url":"([^"]+)"/.exec(line)?.[1];
          if (url) worker.url = url;
        }
      }
    };
    child.stdout?.on('data', collect('stdout'));
    child.stderr?.on('data', collect('stderr'));
    // A last line without its newline (a crash's message) is kept too.
    child.stdout?.on('end', () => collect('stdout')(Buffer.from('\n')));
    child.stderr?.on('end', () => collect('stderr')(Buffer.from('\n')));
    await eventually(
      async () => {
        if (child.exitCode !== null)
          throw new Error(`worker exited (${child.exitCode}):\n${output.join('\n')}`);
        return polling ? true : undefined;
      },
      60_000,
      `the ${kind} process to run`,
    );
    return worker;
  }

  return {
    start,
    async killAll(): Promise<void> {
      await Promise.all([...running].map((worker) => worker.kill()));
    },
  };
}

/** Waits until `worker` has printed a line that `matches` (a crash-window worker's `CRASH WINDOW …`). */
export function lineOf(
  worker: WorkerProcess,
  matches: (line: string) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<string> {
  return eventually(
    async () => {
      if (worker.child.exitCode !== null) throw new Error(`the process exited:\n${worker.output.join('\n')}`);
      return worker.output.find(matches);
    },
    timeoutMs,
    what,
  );
}
