import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectSigningKey } from '../../credentials/collect/signing-key.ts';
import { openDatabase } from '../../db/client.ts';
import { prepareDataDir, writePrivateFile } from '../../platform/data-dir.ts';
import { startDevServer } from '../../platform/dev-server.ts';
import { resolveTemporalCli } from '../../platform/temporal-cli.ts';

/**
 * Everything the platform keeps in DATA_DIR is readable by its owner only (issue 13, item 5): the
 * folder itself (0700), PGlite's folder and files, the Temporal dev server's SQLite files, the
 * generated collect signing key, the sandbox token and the pid file (0600). Also when they exist
 * already with looser modes (an installation from before): a start tightens them.
 */

let root: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'data-files-'));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const modeOf = (file: string) => statSync(file).mode & 0o777;
/** Every file and folder below `dir` (and `dir`) with a permission bit for group or others. */
function readableByOthers(dir: string): string[] {
  const found = modeOf(dir) & 0o077 ? [dir] : [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...readableByOthers(file));
    else if (modeOf(file) & 0o077) found.push(file);
  }
  return found;
}

describe('DATA_DIR', () => {
  it('is created 0700, and an existing one is tightened to 0700', () => {
    const fresh = path.join(root, 'fresh', 'data');
    prepareDataDir(fresh);
    expect(modeOf(fresh)).toBe(0o700);
    const old = path.join(root, 'old');
    mkdirSync(old, { mode: 0o755 });
    chmodSync(old, 0o755);
    prepareDataDir(old);
    expect(modeOf(old)).toBe(0o700);
  });

  it('private files are 0600, also when they existed with another mode', () => {
    const file = path.join(root, 'sandbox-token');
    writeFileSync(file, 'old\n', { mode: 0o644 });
    chmodSync(file, 0o644);
    writePrivateFile(file, 'at_new\n');
    expect(modeOf(file)).toBe(0o600);
  });

  it('the generated collect signing key is 0600 in a 0700 DATA_DIR', () => {
    const dataDir = path.join(root, 'collect');
    collectSigningKey({ DATA_DIR: dataDir, PLATFORM_MODE: 'sandbox', COLLECT_SIGNING_KEY: undefined });
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(path.join(dataDir, 'collect-signing-key.pem'))).toBe(0o600);
  });
});

describe('PGlite', () => {
  it('its folder and files are readable by their owner only', async () => {
    const pgliteDir = path.join(root, 'pg', 'pglite');
    // An installation from before: the folder exists, readable by everyone.
    mkdirSync(pgliteDir, { recursive: true, mode: 0o755 });
    chmodSync(pgliteDir, 0o755);
    const database = await openDatabase({ pgliteDir });
    try {
      expect(readableByOthers(pgliteDir)).toEqual([]);
    } finally {
      await database.close();
    }
    expect(readableByOthers(pgliteDir)).toEqual([]);
  }, 120_000);
});

describe('Temporal dev server', () => {
  it('temporal.sqlite and its WAL files are readable by their owner only', async () => {
    const dataDir = path.join(root, 'temporal');
    prepareDataDir(dataDir);
    const server = await startDevServer({
      cliPath: await resolveTemporalCli({ explicitPath: process.env.TEMPORAL_CLI_PATH }),
      dbFile: path.join(dataDir, 'temporal.sqlite'),
      pidFile: path.join(dataDir, 'temporal.pid'),
    });
    try {
      const files = readdirSync(dataDir);
      expect(files).toContain('temporal.sqlite');
      expect(files).toContain('temporal.pid');
      expect(readableByOthers(dataDir)).toEqual([]);
    } finally {
      await server.stop();
    }
    expect(readableByOthers(dataDir)).toEqual([]);
  }, 120_000);
});
