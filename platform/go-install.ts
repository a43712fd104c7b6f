import { spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type HeldLock, LockHeld, takeLock } from './process-lock.ts';

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
  let lock: HeldLock | undefined;
  let waitingFor: number | undefined;
  while (!lock) {
    try {
      lock = takeLock(`${dir}.lock`, `the build of ${options.what}`);
    } catch (error) {
      const racedForIt = (error as NodeJS.ErrnoException).code === 'EEXIST';
      if (!(error instanceof LockHeld) && !racedForIt) throw error;
      const holder = error instanceof LockHeld ? error.holder.pid : undefined;
      if (holder !== undefined && holder !== waitingFor)
        log(`Waiting for process ${holder}, which is building ${options.what}...`);
      waitingFor = holder;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  }
  try {
    if (options.isBuilt()) return 0;
    return await runGoInstall(options);
  } finally {
    lock.release();
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
