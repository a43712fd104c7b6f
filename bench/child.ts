import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A bench process (the stack, the baseline server): started with tsx, it prints `READY <json>` once up. */
export interface BenchChild<Info> {
  info: Info;
  pid: number;
  /** SIGTERM, then SIGKILL after 15 s. */
  stop(): Promise<void>;
}

export async function startBenchChild<Info>(
  script: string,
  env: Record<string, string>,
  label: string,
): Promise<BenchChild<Info>> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  process.once('exit', () => child.kill('SIGKILL'));
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const info = await new Promise<Info>((resolve, reject) => {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
        const line = buffered.slice(0, at);
        buffered = buffered.slice(at + 1);
        if (line.startsWith('READY ')) resolve(JSON.parse(line.slice(6)) as Info);
        else output = `${output}${line}\n`.slice(-8000);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
    });
    void exited.then(() => reject(new Error(`${label} exited before it was ready:\n${output}`)));
  });
  return {
    info,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Runs a one-shot bench process (the bare SMPP client of baseline (d)) to its end: it prints
 * `RESULT <json>` and exits; a process that exits without it fails with its last output.
 */
export async function runBenchScript<Result>(
  script: string,
  env: Record<string, string>,
  label: string,
): Promise<Result> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  let output = '';
  let result: Result | undefined;
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    const line = output.split('\n').find((each) => each.startsWith('RESULT '));
    if (line && result === undefined) result = JSON.parse(line.slice(7)) as Result;
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  });
  await new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.off('exit', kill);
  if (result === undefined) throw new Error(`${label} ended without a result:\n${output.slice(-8000)}`);
  return result;
}

/** Answers `READY <json>` to the parent (bench/run.ts) and stops cleanly on SIGTERM. */
export function announceReady(info: unknown, stop: () => Promise<void>): void {
  process.stdout.write(`READY ${JSON.stringify(info)}\n`);
  const onSignal = () => {
    void stop().finally(() => process.exit(0));
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}

/** Resident memory of a process (Linux /proc), in bytes. */
export function processRss(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) a process has used so far, in seconds (Linux /proc). */
export function processCpuSeconds(pid: number): number | undefined {
  try {
    // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on Linux, asked once). */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Samples a process's resident memory every `everyMs` until stopped; answers the peak seen. */
export function watchPeakRss(pid: number, everyMs = 250): { stop(): number | undefined } {
  let peak = processRss(pid);
  const timer = setInterval(() => {
    const now = processRss(pid);
    if (now !== undefined && (peak === undefined || now > peak)) peak = now;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}
