import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { writePrivateFile } from './data-dir.ts';
import { isProcessAlive, processStartOf } from './process-lock.ts';

/**
 * DATA_DIR/stack.json: the platform running on a DATA_DIR (`npm start` or `npm run stack`) says where
 * its admin API answers (decision 0080), so that `npm run admin` goes through it instead of opening
 * the database the platform holds. Written owner-only; `npm start` removes it on a clean exit, and a
 * file whose process is dead (SIGKILL) is ignored.
 */
export const STACK_FILE = 'stack.json';

export interface RunningStack {
  /** `npm start` or `npm run stack`. */
  command: string;
  stackPid: number;
  stackProcessStart: string | null;
  /** The admin API's base (`<api>/admin`), once the API listens. */
  adminUrl?: string | undefined;
  /**
   * Sandbox only: the generated operator token (as in sandbox-parties.json). Production writes none: an
   * operator's CLI presents its own ADMIN_TOKEN, the one the platform was configured with.
   */
  adminToken?: string | undefined;
}

export const stackFile = (dataDir: string) => path.join(dataDir, STACK_FILE);

/** The fields of stack.json naming this process; `npm run stack` adds its processes to them. */
export const thisStack = (
  command: string,
): Pick<RunningStack, 'command' | 'stackPid' | 'stackProcessStart'> => ({
  command,
  stackPid: process.pid,
  stackProcessStart: processStartOf(process.pid),
});

/** Writes DATA_DIR/stack.json (0600). */
export function recordRunningStack(dataDir: string, stack: RunningStack & Record<string, unknown>): void {
  writePrivateFile(stackFile(dataDir), `${JSON.stringify(stack, null, 2)}\n`);
}

/** Removes DATA_DIR/stack.json if this process wrote it. */
export function forgetRunningStack(dataDir: string): void {
  const recorded = readStack(dataDir);
  if (recorded?.stackPid === process.pid) rmSync(stackFile(dataDir), { force: true });
}

function readStack(dataDir: string): RunningStack | undefined {
  try {
    const parsed = JSON.parse(readFileSync(stackFile(dataDir), 'utf8')) as Partial<RunningStack>;
    if (typeof parsed.stackPid !== 'number') return undefined;
    return {
      command: parsed.command ?? 'npm run stack',
      stackPid: parsed.stackPid,
      stackProcessStart: parsed.stackProcessStart ?? null,
      adminUrl: parsed.adminUrl,
      adminToken: parsed.adminToken,
    };
  } catch {
    return undefined;
  }
}

/** The platform running on `dataDir`, if its process is alive (another than this one). */
export function findRunningStack(dataDir: string): RunningStack | undefined {
  const recorded = readStack(dataDir);
  if (!recorded || recorded.stackPid === process.pid) return undefined;
  return isProcessAlive(recorded.stackPid, recorded.stackProcessStart) ? recorded : undefined;
}
