import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../support/import-graph.ts';

/**
 * The typed client (clients/, decision 0058) is a package that stands on its own: copied into an empty
 * folder outside the repository it installs its declared dependencies, builds and packs (`npm pack`); the
 * tarball installs into an empty project whose TypeScript code imports it, type-checks (its paths and
 * answers typed, not `any`) and runs. Nothing here may lean on the repository's tsconfig.json or
 * node_modules, except the TypeScript compiler that checks the consumer.
 *
 * npm runs with `--prefer-offline`: packages come from the npm cache that the repository's own install
 * filled, the registry only for what the cache lacks.
 */

const run = promisify(execFile);
const tsc = path.join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];

/** The environment without the npm_* variables of an `npm test` run (its prefix, its package). */
const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

async function npm(cwd: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run('npm', args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`npm ${args.join(' ')} in ${cwd} failed:\n${failed.stdout ?? ''}${failed.stderr ?? ''}`);
  }
}

/** `tsc -p <project>`: '' when it type-checks, else the compiler's messages. */
async function typeCheck(project: string): Promise<string> {
  try {
    await run(process.execPath, [tsc, '-p', project], { cwd: path.dirname(project), env });
    return '';
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    return `${failed.stdout ?? ''}${failed.stderr ?? ''}` || String(error);
  }
}

/** A consumer's file: every subpath export, typed calls, and a misuse the types must refuse. */
const CONSUMER = `import { createCollectClient, parseLines } from '@integration-platform/client/collect';
import { createLendingClient } from '@integration-platform/client/lending';
import { createMessagingClient, type MessagingError } from '@integration-platform/client/messaging';
import { createOpenBankingClient } from '@integration-platform/client/openbanking';
import type { PlatformError } from '@integration-platform/client';

export async function sendSms(baseUrl: string, token: string): Promise<string> {
  const messaging = createMessagingClient(baseUrl, token);
  const { data, error } = await messaging.POST('/sms', {
    body: { to: '+359888123456', from: 'DEMO', message: 'Hello' },
  });
  const failure: MessagingError | undefined = error;
  // @ts-expect-error: not a path of the messaging document (were the types lost, this would not fail)
  await messaging.GET('/no-such-path');
  // @ts-expect-error: the body lacks 'message'
  await messaging.POST('/sms', { body: { to: '+359888123456', from: 'DEMO' } });
  const id: string | undefined = data?.id;
  return id ?? failure?.error.code ?? 'none';
}

export function clients(baseUrl: string): unknown[] {
  const collect = createCollectClient(baseUrl, { min: 'D123456789', secret: 's' });
  const packet = collect.packet({ INVOICE: '100001', AMOUNT: '22.80' });
  const lines: Record<string, string> = parseLines('ERR=BAD_CHECKSUM');
  const lending = createLendingClient(baseUrl, { apiKey: 'key' });
  const openbanking = createOpenBankingClient(baseUrl, { agentHash: 'hash' });
  const error: PlatformError = { error: { code: 'not_found', message: 'No such thing' } };
  return [packet, lines, lending, openbanking, error];
}
`;

/** Runs the installed package: a messaging call, answered by a stub fetch, goes where the docs say. */
const RUNTIME_CHECK = `import * as all from '@integration-platform/client';
import { createMessagingClient } from '@integration-platform/client/messaging';
let seen;
const messaging = createMessagingClient('http://platform.invalid', 'at_token', {
  fetch: async (request) => {
    seen = { url: request.url, method: request.method, body: await request.json() };
    return new Response(JSON.stringify({ id: 'sms-1', status: 'accepted' }), {
      status: 202, headers: { 'content-type': 'application/json' },
    });
  },
});
const answer = await messaging.POST('/sms', { body: { to: '+359888123456', from: 'DEMO', message: 'Hi' } });
console.log(JSON.stringify({ exports: Object.keys(all).sort(), seen, data: answer.data }));
`;

let root: string;
let tarball: string;
let packed: { files: { path: string }[] };

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'client-package-'));
  const source = path.join(root, 'client');
  // What a package checkout has: clients/ alone, without a build or installed modules.
  cpSync(path.join(projectRoot, 'clients'), source, {
    recursive: true,
    filter: (file) => !/[/\\](dist|node_modules)([/\\]|$)/.test(path.relative(projectRoot, file)),
  });
  await npm(source, ['install', ...NPM_FLAGS]);
  const [result] = JSON.parse(await npm(source, ['pack', '--json', '--pack-destination', root])) as {
    filename: string;
    files: { path: string }[];
  }[];
  if (!result) throw new Error('npm pack answered no tarball');
  packed = result;
  tarball = path.join(root, result.filename);
}, 600_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('the typed client as a package (clients/)', () => {
  it('is built and packed in a folder outside the repository: the tarball has its build and types', () => {
    expect(path.relative(projectRoot, root).startsWith('..')).toBe(true);
    const files = packed.files.map((file) => file.path);
    for (const entry of ['index', 'messaging', 'collect', 'lending', 'openbanking'])
      expect(files).toEqual(expect.arrayContaining([`dist/${entry}.js`, `dist/${entry}.d.ts`]));
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md']));
    expect(files.filter((file) => !/^(dist|src)\/|^package\.json$|^README\.md$/.test(file))).toEqual([]);
  });

  it('installs into an empty project whose TypeScript imports it and type-checks', async () => {
    const consumer = path.join(root, 'consumer');
    mkdirSync(consumer);
    writeFileSync(
      path.join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    await npm(consumer, ['install', ...NPM_FLAGS, tarball]);
    const installed = JSON.parse(
      readFileSync(path.join(consumer, 'node_modules/@integration-platform/client/package.json'), 'utf8'),
    ) as { version: string };
    expect(installed.version).toBe(
      (
        JSON.parse(readFileSync(path.join(projectRoot, 'clients/package.json'), 'utf8')) as {
          version: string;
        }
      ).version,
    );
    writeFileSync(path.join(consumer, 'consumer.ts'), CONSUMER);
    // Node's resolution (exports, ESM) and a bundler's, without @types/node: the package needs neither.
    for (const moduleResolution of ['NodeNext', 'Bundler']) {
      const project = path.join(consumer, `tsconfig.${moduleResolution}.json`);
      writeFileSync(
        project,
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: moduleResolution === 'NodeNext' ? 'NodeNext' : 'ESNext',
            moduleResolution,
            lib: ['ES2022', 'DOM'],
            types: [],
            strict: true,
            noEmit: true,
          },
          files: ['consumer.ts'],
        }),
      );
      expect(await typeCheck(project), moduleResolution).toBe('');
    }

    writeFileSync(path.join(consumer, 'check.mjs'), RUNTIME_CHECK);
    const { stdout } = await run(process.execPath, ['check.mjs'], { cwd: consumer, env });
    const ran = JSON.parse(stdout) as {
      exports: string[];
      seen: { url: string; method: string };
      data: unknown;
    };
    expect(ran.exports).toEqual(
      expect.arrayContaining([
        'createCollectClient',
        'createLendingClient',
        'createMessagingClient',
        'createOpenBankingClient',
        'parseLines',
      ]),
    );
    expect(ran.seen).toEqual({
      url: 'http://platform.invalid/messaging/sms?at=at_token',
      method: 'POST',
      body: { to: '+359888123456', from: 'DEMO', message: 'Hi' },
    });
    expect(ran.data).toEqual({ id: 'sms-1', status: 'accepted' });
  }, 300_000);
});
