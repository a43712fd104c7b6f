import { chmodSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * DATA_DIR and what the platform keeps in it (PGlite, the Temporal dev server's SQLite files, the
 * generated collect signing key, the sandbox token, the pid file) are readable by their owner only:
 * folders 0700, files 0600. A start also tightens what an older installation left with looser modes.
 */

/** Creates `dir` (and missing parents) 0700; an existing `dir` is set to 0700. */
export function prepareDataDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/** Writes a file readable by its owner only (0600), also when it existed with another mode. */
export function writePrivateFile(file: string, content: string): void {
  writeFileSync(file, content, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** Removes the group and other permission bits of `target` and, for a folder, of all it holds. */
export function restrictToOwner(target: string): void {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (stat.isSymbolicLink()) return;
  if (stat.mode & 0o077) chmodSync(target, stat.mode & 0o700);
  if (stat.isDirectory()) for (const entry of readdirSync(target)) restrictToOwner(path.join(target, entry));
}
