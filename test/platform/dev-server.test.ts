import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DevServer, type DevServerOptions, startDevServer } from '../../platform/dev-server.ts';
import { freePort } from '../../platform/net.ts';
import { resolveTemporalCli } from '../../platform/temporal-cli.ts';
import { eventually } from '../support/platform.ts';

/**
 * `npm start` runs the Temporal dev server as a child process. When `npm start` is SIGKILLed, the
 * child survives it and keeps its port, so the next start must recognise the server it left behind (a
 * pid file in DATA_DIR naming a `temporal server start-dev` of that data dir) and stop it first, and
 * must never stop a process that is not that server.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let dataDir: string;
let options: DevServerOptions;
const spawned = new Set<ChildProcess>();
const servers = new Set<DevServer>();

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (dead, not yet reaped) still answers signal 0.
  const stat = `/proc/${pid}/stat`;
  return !existsSync(stat) || !/^\d+ \(.*\) Z/.test(readFileSync(stat, 'utf8'));
};
const pidFile = () => path.join(dataDir, 'temporal.pid');
const recordedPid = () => JSON.parse(readFileSync(pidFile(), 'utf8')).pid as number;

async function start(): Promise<DevServer> {
  const server = await startDevServer(options);
  servers.add(server);
  return server;
}

/** `npm start` as far as the dev server goes, in an OS process of its own that can be SIGKILLed. */
async function startParent(): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/support/dev-server-process.ts', JSON.stringify(options)],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  spawned.add(child);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready')) resolve();
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`dev server parent exited (${code}):\n${output}`)));
  });
  return child;
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'dev-server-test-'));
  options = {
    cliPath: await resolveTemporalCli({ explicitPath: process.env.TEMPORAL_CLI_PATH }),
    dbFile: path.join(dataDir, 'temporal.sqlite'),
    pidFile: path.join(dataDir, 'temporal.pid'),
    port: await freePort(),
    uiPort: false,
  };
});
afterAll(async () => {
  for (const server of servers) await server.stop().catch(() => {});
  for (const child of spawned) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the dev server of a start that was SIGKILLed', () => {
  it('is recognised by its pid file and stopped before a new one starts on its port', async () => {
    const parent = await startParent();
    const orphan = recordedPid();
    expect(alive(orphan)).toBe(true);
    parent.kill('SIGKILL');
    await new Promise((resolve) => parent.once('exit', resolve));
    expect(alive(orphan)).toBe(true); // left behind, still holding the port

    const server = await start();
    expect(alive(orphan)).toBe(false);
    expect(recordedPid()).not.toBe(orphan);
    expect(alive(recordedPid())).toBe(true);
    expect(server.address).toBe(`127.0.0.1:${options.port}`);

    await server.stop();
    servers.delete(server);
    expect(existsSync(pidFile())).toBe(false); // a clean stop leaves no pid file
  });

  it('refuses to stop the dev server of a start that is still running', async () => {
    const server = await start();
    const pid = recordedPid();
    await expect(start()).rejects.toThrow(/still running/);
    expect(alive(pid)).toBe(true);
    expect(recordedPid()).toBe(pid);
    await server.stop();
    servers.delete(server);
  });

  it('never stops a process that is not its dev server, nor trips on a dead one', async () => {
    const unrelated = spawn('sleep', ['300'], { stdio: 'ignore' });
    spawned.add(unrelated);
    await eventually(async () => (unrelated.pid && alive(unrelated.pid) ? true : undefined));
    writeFileSync(pidFile(), `${JSON.stringify({ pid: unrelated.pid, parentPid: 1 })}\n`);
    const server = await start();
    expect(alive(unrelated.pid!)).toBe(true);
    expect(unrelated.exitCode).toBeNull();
    expect(recordedPid()).not.toBe(unrelated.pid);
    await server.stop();
    servers.delete(server);

    writeFileSync(pidFile(), '999999999\n'); // no such process (and an older, plain format)
    const again = await start();
    await again.stop();
    servers.delete(again);
  });
});
