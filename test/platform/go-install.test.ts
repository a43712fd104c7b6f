import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { goInstall, isExecutable } from '../../platform/go-install.ts';

/**
 * Test files and processes started together all resolve the same Go-built binaries (the Temporal CLI, the
 * server, the UI server): one `go install` per folder runs, the others wait for it. A stand-in `go` counts
 * its runs (the real one takes minutes) and leaves the binary where GOBIN says.
 */
const root = mkdtempSync(path.join(os.tmpdir(), 'go-install-'));
const runs = path.join(root, 'runs.log');
const fakeGo = path.join(root, 'go');
writeFileSync(
  fakeGo,
  `#!/bin/sh\necho "$*" >> ${runs}\nsleep 1\nprintf '#!/bin/sh\\n' > "$GOBIN/tool" && chmod +x "$GOBIN/tool"\n`,
);
chmodSync(fakeGo, 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const install = (dir: string) =>
  goInstall({
    go: fakeGo,
    dir,
    what: 'a tool',
    log: () => {},
    isBuilt: () => isExecutable(path.join(dir, 'tool')),
    packages: ['example.com/tool@v1'],
  });

const runCount = () => (existsSync(runs) ? readFileSync(runs, 'utf8').trim().split('\n').length : 0);

describe('goInstall', () => {
  it('builds once when three callers ask at the same time', async () => {
    const dir = path.join(root, 'together');
    await Promise.all([install(dir), install(dir), install(dir)]);
    expect(isExecutable(path.join(dir, 'tool'))).toBe(true);
    expect(runCount()).toBe(1);
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });

  it('takes over the lock of a build that died half-way', async () => {
    const dir = path.join(root, 'stale');
    // A pid far above any the kernel hands out here: its holder is gone.
    writeFileSync(`${dir}.lock`, JSON.stringify({ pid: 4194000, since: '2026-12-07T00:00:00Z' }));
    const before = runCount();
    await install(dir);
    expect(runCount()).toBe(before + 1);
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });
});
