import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';

/**
 * One owner at a time for something on disk (decision 0080): a lock file created atomically (O_EXCL)
 * holding the owner's pid and start time. A second taker fails at once, naming the holder; a file
 * whose holder is gone (a SIGKILLed start) is taken over. The kernel keeps no lock for us: what keeps
 * two owners out is O_EXCL, what frees a dead owner's lock is the liveness check.
 */

export interface LockHolder {
  pid: number;
  /** The holder's start (Linux: /proc/<pid>/stat field 22), so that a recycled pid is not taken for it. */
  processStart: string | null;
  /** When the lock was taken (ISO 8601), and by which command: for the refusal's message. */
  since: string;
  command: string;
}

export class LockHeld extends Error {
  constructor(
    readonly lockFile: string,
    readonly holder: LockHolder,
    what: string,
  ) {
    super(
      `${what} is in use by process ${holder.pid} (${holder.command}, since ${holder.since}; lock ${lockFile}). ` +
        'One process at a time may open it: stop that process first, or go through its admin API.',
    );
    this.name = 'LockHeld';
  }
}

/** The start time of `pid` as the kernel counts it; null where /proc is not there (macOS). */
export function processStartOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (the command) is in parentheses and may hold spaces: count from after its closing one.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** The process that recorded `pid` and `processStart` still runs (not another one with its pid). */
export function isProcessAlive(pid: number, processStart: string | null): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it runs, under another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (processStart === null) return true;
  const now = processStartOf(pid);
  return now === null || now === processStart;
}

function readHolder(lockFile: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(lockFile, 'utf8')) as Partial<LockHolder>;
    if (typeof parsed.pid !== 'number') return undefined;
    return {
      pid: parsed.pid,
      processStart: parsed.processStart ?? null,
      since: parsed.since ?? 'unknown',
      command: parsed.command ?? 'unknown',
    };
  } catch {
    return undefined;
  }
}

/** Who holds `lockFile` now, if its holder runs. */
export function liveLockHolder(lockFile: string): LockHolder | undefined {
  const holder = readHolder(lockFile);
  return holder && isProcessAlive(holder.pid, holder.processStart) ? holder : undefined;
}

export const thisProcess = (): LockHolder => ({
  pid: process.pid,
  processStart: processStartOf(process.pid),
  since: new Date().toISOString(),
  command: process.argv.slice(1, 3).join(' ') || 'node',
});

/** How long a lock file may stay unreadable (being written) before it counts as a crash's leftover. */
const UNREADABLE_LOCK_GRACE_MS = 5_000;

export interface HeldLock {
  /** Removes the lock file (if it is still ours); idempotent. */
  release(): void;
}

/**
 * Takes `lockFile` for this process or throws LockHeld at once. `what` names the locked thing in the
 * message ("the database in data/pglite").
 */
export function takeLock(lockFile: string, what: string): HeldLock {
  const me = thisProcess();
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(lockFile, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const holder = readHolder(lockFile);
      if (holder && (holder.pid === me.pid || isProcessAlive(holder.pid, holder.processStart)))
        throw new LockHeld(lockFile, holder, what);
      // A lock without content is being written this very moment (its writer is alive), unless it is old.
      if (!holder && Date.now() - statSync(lockFile).mtimeMs < UNREADABLE_LOCK_GRACE_MS)
        throw new LockHeld(lockFile, { ...me, pid: -1, command: 'another process, starting' }, what);
      // The holder died without releasing (SIGKILL, power loss): its lock is stale.
      unlinkSync(lockFile);
      continue;
    }
    try {
      writeSync(fd, `${JSON.stringify(me)}\n`);
    } finally {
      closeSync(fd);
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      process.off('exit', release);
      if (readHolder(lockFile)?.pid === me.pid) unlinkSync(lockFile);
    };
    // A process.exit() that skips the owner's close still frees the lock.
    process.on('exit', release);
    return { release };
  }
}
