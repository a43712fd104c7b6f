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
  worker: { script: 'platform/worker-main.ts', ready: '"worker running"' },
  api: { script: 'platform/api-main.ts', ready: '"API listening"' },
} as const;

/**
 * Worker (or API) OS processes for crash tests: `node --import tsx platform/worker-main.ts` (what `npm
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
  async function start(): Promise<WorkerProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: root,
      env: { ...process.env, ...platformEnv(), LOG_LEVEL: 'info' },
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
    const collect = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        output.push(line);
        if (line.includes(ready)) {
          polling = true;
          const url = /"url":"([^"]+)"/.exec(line)?.[1];
          if (url) worker.url = url;
        }
      }
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
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
