import { spawn } from 'node:child_process';
import {
  accessSync,
  closeSync,
  constants,
  mkdirSync,
  openSync,
  readFileSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Builds Go programs from the Go module proxy into the per-user cache (`go install` with GOBIN), once
 * per machine: the Temporal server (platform/temporal-server.ts) and its Web UI (platform/temporal-ui.ts).
 */

export function platformCacheDir(name: string): string {
  const cacheRoot = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cacheRoot, 'integration-platform', name);
}

export const isExecutable = (file: string) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

export function findGo(what: string): string {
  for (const dir of [...(process.env.PATH ?? '').split(path.delimiter), '/usr/local/go/bin']) {
    if (dir && isExecutable(path.join(dir, 'go'))) return path.join(dir, 'go');
  }
  throw new Error(`Go is needed to build ${what} (https://go.dev/dl/).`);
}

/** True while a process with this pid runs (a lock whose holder died is stale). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes `<dir>.lock` (O_EXCL, holding our pid); answers the pid of a live holder instead, if there is one. */
function tryLock(lockFile: string): number | undefined {
  for (;;) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number.parseInt(readFileSync(lockFile, 'utf8'), 10);
    if (Number.isInteger(holder) && holder > 0 && isAlive(holder)) return holder;
    // A build killed half-way left its lock behind: take it over.
    unlinkSync(lockFile);
  }
}

/**
 * `go install <packages>` into `dir`, logging progress every 30 s; resolves with the seconds it took.
 * One build per folder at a time: test files and processes started together all want the same binaries,
 * and parallel `go install`s of one module only slow each other down; a second caller waits for the first
 * and builds nothing when `isBuilt` then holds.
 */
export async function goInstall(options: {
  go: string;
  dir: string;
  packages: string[];
  what: string;
  log: (line: string) => void;
  isBuilt: () => boolean;
}): Promise<number> {
  const { dir, log } = options;
  mkdirSync(path.dirname(dir), { recursive: true });
  const lockFile = `${dir}.lock`;
  let waitingFor: number | undefined;
  for (;;) {
    const holder = tryLock(lockFile);
    if (holder === undefined) break;
    if (waitingFor !== holder) log(`Waiting for process ${holder}, which is building ${options.what}...`);
    waitingFor = holder;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
  try {
    if (options.isBuilt()) return 0;
    return await runGoInstall(options);
  } finally {
    unlinkSync(lockFile);
  }
}

async function runGoInstall(options: {
  go: string;
  dir: string;
  packages: string[];
  what: string;
  log: (line: string) => void;
}): Promise<number> {
  const { go, dir, log } = options;
  mkdirSync(dir, { recursive: true });
  log(`Building ${options.what} with Go into ${dir} (first run only)...`);
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(go, ['install', ...options.packages], {
      env: { ...process.env, GOBIN: dir, GOFLAGS: '-mod=mod' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const ticker = setInterval(
      () => log(`  ... still building (${Math.round((Date.now() - started) / 1000)} s)`),
      30_000,
    );
    child.once('error', reject);
    child.once('exit', (code) => {
      clearInterval(ticker);
      if (code === 0) resolve();
      else reject(new Error(`go install of ${options.what} failed (exit ${code})`));
    });
  });
  const seconds = Math.round((Date.now() - started) / 1000);
  log(`Built ${options.what} in ${seconds} s.`);
  return seconds;
}
