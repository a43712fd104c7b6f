import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lending } from '../../application/lending/index.ts';
import { SANDBOX_CREDIT_PRODUCT, type SandboxParties } from '../../cmd/sandbox-parties.ts';
import { createLendingTenant } from '../../credentials/lending/tenants.ts';
import { openDatabase } from '../../db/client.ts';
import { referenceDataSeedSchema } from '../../domain/lending/reference-data.ts';
import { freePort } from '../../platform/net.ts';
import { camt053 } from '../collect/camt-builder.ts';
import { expTimeIn, newInvoice, signedPacket } from '../collect/epay-client.ts';
import { lendingCall } from '../lending/support.ts';
import { createTestDatabase } from '../support/database.ts';

/**
 * Issue 37 item 2, decision 0080: one writer per embedded database. `npm start` (PGlite in DATA_DIR)
 * runs as an OS process; `npm run admin` run beside it goes through its admin API (DATA_DIR/stack.json),
 * and the running API serves what the commands wrote; a second opener of the PGlite folder is refused at
 * once; a seed is atomic and idempotent; after a restart the database holds it all.
 */

const root = path.resolve(import.meta.dirname, '../..');
const SEED = referenceDataSeedSchema.parse(
  JSON.parse(readFileSync(path.join(root, 'datasets/lending-reference-data.json'), 'utf8')),
);
let dataDir: string;
/** Where the lock of a PGlite folder is (db/client.ts): beside the folder. */
const pgliteLockFile = (pgliteDir: string) => `${pgliteDir}.lock`;
let env: Record<string, string>;
let platform: Running;
let parties: SandboxParties;

interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  apiUrl: string;
}

/** The environment of `npm start` and of the CLI: this test's DATA_DIR and ports, and no DATABASE_URL. */
async function platformEnv(): Promise<Record<string, string>> {
  const { DATABASE_URL: _url, ADMIN_TOKEN: _token, ...inherited } = process.env;
  const ports: Record<string, string> = {};
  for (const name of [
    'PORT',
    'TEMPORAL_UI_PORT',
    'SMPP_PORT',
    'SANDBOX_HTTP_PORT',
    'SANDBOX_BANKS_PORT',
    'SANDBOX_MERCHANT_PORT',
    'SANDBOX_ACQUIRER_PORT',
    'SANDBOX_BUREAU_PORT',
    'METRICS_PORT',
  ])
    ports[name] = String(await freePort());
  return {
    ...(inherited as Record<string, string>),
    ...ports,
    TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}`,
    DATA_DIR: dataDir,
    PLATFORM_MODE: 'sandbox',
    LOG_LEVEL: 'info',
  };
}

async function startPlatform(): Promise<Running> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'cmd/start.ts'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  process.once('exit', () => child.kill('SIGKILL'));
  const deadline = Date.now() + 240_000;
  while (!output.includes('Press Ctrl-C to stop.')) {
    if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) throw new Error(`npm start was not ready:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const apiUrl = /API\s+(http:\/\/\S+)/.exec(output)?.[1];
  if (!apiUrl) throw new Error(`no API URL in:\n${output}`);
  return { child, output: () => output, exited, apiUrl };
}

async function stopPlatform(running: Running): Promise<number | null> {
  running.child.kill('SIGINT');
  return running.exited;
}

/** `npm run admin -- <args>` with the platform's environment: exit code, stdout, stderr, duration. */
function admin(...args: string[]) {
  const started = Date.now();
  return new Promise<{ code: number; stdout: string; stderr: string; ms: number }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'cmd/admin.ts', ...args],
      { cwd: root, env },
      (error, stdout, stderr) =>
        resolve({
          code: error ? ((error as { code?: number }).code ?? 1) : 0,
          stdout,
          stderr,
          ms: Date.now() - started,
        }),
    );
  });
}

/** A command that must succeed; its JSON answer. */
async function adminOk(...args: string[]): Promise<Record<string, unknown>> {
  const run = await admin(...args);
  expect(run.code, `${args.join(' ')}\n${run.stdout}\n${run.stderr}`).toBe(0);
  return adminJson(run.stdout);
}

/** The JSON a command printed, without the line that may follow it ("Keep the key now: ..."). */
function adminJson(stdout: string): Record<string, unknown> {
  const lines = stdout.split('\n');
  const end = lines.findLastIndex((line) => line === '}' || line === ']');
  return end < 0 ? {} : (JSON.parse(lines.slice(0, end + 1).join('\n')) as Record<string, unknown>);
}

/** A command that must succeed through the running platform's admin API (it says so on stderr). */
async function adminThroughApi(...args: string[]): Promise<Record<string, unknown>> {
  const run = await admin(...args);
  expect(run.code, `${args.join(' ')}\n${run.stdout}\n${run.stderr}`).toBe(0);
  expect(run.stderr).toMatch(/through the admin API of npm start/);
  return adminJson(run.stdout);
}

const adminApi = async (method: string, adminPath: string) => {
  const response = await fetch(`${platform.apiUrl}/admin${adminPath}`, {
    method,
    headers: { authorization: `Bearer ${parties.adminToken}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

/** ePay's checkout form posted with a URL_CANCEL outside the signed packet, then cancelled. */
async function cancelledCheckoutLandsOn(urlCancel: string): Promise<string | null> {
  const packet = signedPacket(
    { MIN: parties.collect.min, INVOICE: newInvoice(), AMOUNT: '3.00', EXP_TIME: expTimeIn(86_400_000) },
    parties.collect.secret,
  );
  const opened = await fetch(`${platform.apiUrl}/collect/`, {
    method: 'POST',
    body: new URLSearchParams({
      PAGE: 'credit_paydirect',
      ...packet,
      URL_OK: urlCancel,
      URL_CANCEL: urlCancel,
    }),
  });
  const html = await opened.text();
  expect(opened.status, html.slice(0, 300)).toBe(200);
  const token = /name="token" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const cancelled = await fetch(`${platform.apiUrl}/collect/card/pay`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ token, action: 'cancel' }),
  });
  return cancelled.headers.get('location');
}

const dictionaryNames = async (frontOfficeKey: string) => {
  const answer = await lendingCall(platform, 'POST', '/Dictionary/GetValues', { key: frontOfficeKey });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return ((answer.body.dictionaries ?? []) as { name: string }[]).map((dictionary) => dictionary.name).sort();
};

/** The tenant this file creates through the CLI, with its front-office key. */
let tenant: { tenantId: string; frontOffice: string };

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'admin-running-'));
  env = await platformEnv();
  platform = await startPlatform();
  parties = JSON.parse(readFileSync(path.join(dataDir, 'sandbox-parties.json'), 'utf8')) as SandboxParties;
}, 300_000);
afterAll(async () => {
  if (platform?.child.exitCode === null) await stopPlatform(platform);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('a second opener of the running platform’s PGlite folder', () => {
  it('is refused at once, naming the process that holds it', async () => {
    const second = await openInAnotherProcess(path.join(dataDir, 'pglite'));
    expect(second.output).toMatch(new RegExp(`in use by process ${platform.child.pid} \\(.*cmd/start\\.ts`));
    expect(second.code).toBe(1);
    expect(second.ms).toBeLessThan(10_000);
  }, 30_000);
});

describe('npm run admin while npm start runs on PGlite', () => {
  it('creates a lending tenant and its key, seeds its reference data, and the running API serves them', async () => {
    const created = await adminOk('lending:tenant', '--name', 'Writer test lender');
    const tenantId = String(created.tenantId);
    const key = await adminOk('lending:api-key', '--tenant', tenantId, '--level', 'front_office');
    tenant = { tenantId, frontOffice: String(key.apiKey) };
    expect(await dictionaryNames(tenant.frontOffice)).toEqual([]);

    await adminOk('lending:seed-reference-data', '--tenant', tenantId);
    expect(await dictionaryNames(tenant.frontOffice)).toEqual(SEED.dictionaries.map((d) => d.name).sort());
  }, 60_000);

  it('seeds twice without changing anything', async () => {
    const before = await adminApi('GET', `/lending/tenants/${tenant.tenantId}/reference-data`);
    expect(before.status).toBe(200);
    expect((before.body.vendors as unknown[]).length).toBe(SEED.vendors.length);
    await adminOk('lending:seed-reference-data', '--tenant', tenant.tenantId);
    expect(await adminApi('GET', `/lending/tenants/${tenant.tenantId}/reference-data`)).toEqual(before);
  }, 60_000);

  it('sets a merchant’s return origins, and the running card page honours them', async () => {
    const urlCancel = 'https://shop.example/epay/cancel?order=1';
    expect(await cancelledCheckoutLandsOn(urlCancel)).not.toBe(urlCancel);
    await adminOk(
      'collect:return-origins',
      '--min',
      parties.collect.min,
      '--return-origin',
      'https://shop.example',
    );
    expect(await cancelledCheckoutLandsOn(urlCancel)).toBe(urlCancel);
  }, 60_000);

  // Every other command, in two parts (each CLI run starts a process of its own: seconds each on a busy machine).
  const filesFolder = () => {
    const files = mkdtempSync(path.join(tmpdir(), 'admin-files-'));
    const file = (name: string, content: string) => {
      writeFileSync(path.join(files, name), content);
      return path.join(files, name);
    };
    return { file, remove: () => rmSync(files, { recursive: true, force: true }) };
  };

  it('runs the messaging commands through the admin API', async () => {
    const { file, remove } = filesFolder();
    const account = await adminOk('messaging:token', '--name', 'Writer test account');
    const second = await adminOk('messaging:token', '--account', String(account.accountId));
    expect(second.accountId).toBe(account.accountId);
    const smsList = () =>
      fetch(`${platform.apiUrl}/messaging/sms?at=${encodeURIComponent(String(second.token))}`);
    expect((await smsList()).status).toBe(200);
    await adminThroughApi('messaging:revoke', '--token-id', String(second.tokenId));
    expect((await smsList()).status).toBe(401);
    await adminThroughApi('messaging:sender-ids');
    await adminThroughApi(
      'messaging:price-list',
      '--account',
      String(account.accountId),
      file('prices.csv', 'country,mcc,mnc,price,currency\nBG,284,03,0.0150,EUR\n'),
    );
    const carrier = { url: 'smpp://127.0.0.1:9', systemId: 'platform', password: 'sandbox' };
    await adminThroughApi(
      'messaging:carrier',
      '--name',
      'writer',
      file('carrier.json', JSON.stringify(carrier)),
    );
    await adminThroughApi('messaging:carriers');
    const route = { prefix: '999', carriers: ['writer'] };
    await adminThroughApi('messaging:route', '--name', 'writer', file('route.json', JSON.stringify(route)));
    await adminThroughApi('messaging:routes');
    remove();
  }, 240_000);

  it('runs the other services’ commands through the admin API, refusals included', async () => {
    const { file, remove } = filesFolder();
    const merchant = await adminThroughApi('collect:merchant', '--name', 'Writer test shop');
    await adminThroughApi(
      'collect:notify-url',
      '--min',
      String(merchant.min),
      '--notify-url',
      'https://shop.example/n',
    );
    await adminThroughApi(
      'collect:desk-operator',
      '--login',
      'writer-01',
      '--name',
      'Desk',
      '--office-id',
      '000123',
    );
    await adminThroughApi('collect:balances');
    await adminThroughApi('collect:statement', file('day.xml', camt053({ id: 'WRITER-1', entries: [] })));
    await adminThroughApi('openbanking:agent', '--name', 'Writer test agent');
    await adminThroughApi('openbanking:admin-hash');
    await adminThroughApi('openbanking:rotate-keys');
    const product = file('product.json', JSON.stringify(SANDBOX_CREDIT_PRODUCT));
    await adminThroughApi('lending:credit-product', '--tenant', tenant.tenantId, product);
    const products = await adminApi('GET', `/lending/tenants/${tenant.tenantId}/credit-products`);
    expect(products.body.creditProducts).toEqual([
      expect.objectContaining({ name: SANDBOX_CREDIT_PRODUCT.name }),
    ]);
    await adminThroughApi('lending:credit-products', '--tenant', tenant.tenantId);
    await adminThroughApi('lending:files-sweep', '1h');
    await adminThroughApi(
      'lending:collect-merchant',
      '--tenant',
      tenant.tenantId,
      '--min',
      'D200000001',
      '--secret',
      'a-merchant-secret-0123456789',
    );
    await adminThroughApi(
      'lending:unlock-login',
      '--tenant',
      tenant.tenantId,
      '--login',
      'nobody@example.com',
    );
    await adminThroughApi('lending:reference-data', '--tenant', tenant.tenantId);
    const key = await adminThroughApi(
      'lending:api-key',
      '--tenant',
      tenant.tenantId,
      '--level',
      'management',
    );
    await adminThroughApi('lending:revoke-key', '--key-id', String(key.keyId));

    // A refusal of the API is the command's: exit 2, the message and the fields on stderr.
    const unknown = await admin('messaging:approve-sender-id', '--id', crypto.randomUUID(), '--reason', 'ok');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/\(404 from http:\/\/\S+\/admin\)/);
    const badOrigin = await admin(
      'collect:return-origins',
      '--min',
      parties.collect.min,
      '--return-origin',
      'https://shop.example/path',
    );
    expect(badOrigin.code).toBe(2);
    expect(badOrigin.stderr).toContain('returnOrigins:');
    remove();
  }, 240_000);

  it('leaves nothing behind when a seed is refused half-way', async () => {
    const created = await adminOk('lending:tenant', '--name', 'Writer half-seeded lender');
    const broken = writeBrokenSeed();
    const run = await admin('lending:seed-reference-data', '--tenant', String(created.tenantId), broken);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('vendors.0.stores.1.storeId');
    const data = await adminApi('GET', `/lending/tenants/${created.tenantId}/reference-data`);
    expect({ dictionaries: data.body.dictionaries, vendors: data.body.vendors }).toEqual({
      dictionaries: [],
      vendors: [],
    });
  }, 60_000);
});

describe('a second `npm start` on the same DATA_DIR', () => {
  it('is refused at once, and leaves the first running', async () => {
    const second = spawn(process.execPath, ['--import', 'tsx', 'cmd/start.ts'], {
      cwd: root,
      env: { ...env, PORT: String(await freePort()) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    second.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    second.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await Promise.race([
      new Promise<number | null>((resolve) => second.once('exit', resolve)),
      new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 20_000)),
    ]);
    if (code === 'running') second.kill('SIGKILL');
    expect(code, output).toBe(1);
    expect(output).toMatch(/npm start already runs on DATA_DIR .* \(pid \d+\): stop it first/);
    expect((await fetch(`${platform.apiUrl}/health`)).status).toBe(200);
  }, 30_000);
});

describe('after the platform stops', () => {
  it('has removed stack.json and the lock; the CLI opens the database itself; a restart finds everything', async () => {
    expect(await stopPlatform(platform)).toBe(0);
    expect(existsSync(path.join(dataDir, 'stack.json'))).toBe(false);
    expect(existsSync(pgliteLockFile(path.join(dataDir, 'pglite')))).toBe(false);

    const local = await admin('lending:reference-data', '--tenant', tenant.tenantId);
    expect(local.code, local.stderr).toBe(0);
    expect(local.stderr).not.toMatch(/through the admin API/);
    expect((JSON.parse(local.stdout) as { vendors: unknown[] }).vendors).toHaveLength(SEED.vendors.length);

    platform = await startPlatform();
    parties = JSON.parse(readFileSync(path.join(dataDir, 'sandbox-parties.json'), 'utf8')) as SandboxParties;
    expect(await dictionaryNames(tenant.frontOffice)).toEqual(SEED.dictionaries.map((d) => d.name).sort());
    const urlCancel = 'https://shop.example/epay/cancel?order=2';
    expect(await cancelledCheckoutLandsOn(urlCancel)).toBe(urlCancel);
    await adminOk('lending:seed-reference-data', '--tenant', tenant.tenantId);
  }, 300_000);
});

describe('the PGlite lock (no platform running)', () => {
  it('is taken over from a process that died, and refuses another process while held', async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'pglite-lock-')), 'pglite');
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => dead.once('exit', resolve));
    writeFileSync(
      pgliteLockFile(dir),
      JSON.stringify({ pid: dead.pid, processStart: null, since: 'then', command: 'a killed start' }),
    );
    const database = await openDatabase({ pgliteDir: dir });
    try {
      const second = await openInAnotherProcess(dir);
      expect(second.output).toMatch(new RegExp(`in use by process ${process.pid} `));
      expect(second.code).toBe(1);
    } finally {
      await database.close();
    }
    expect(existsSync(pgliteLockFile(dir))).toBe(false);
    rmSync(path.dirname(dir), { recursive: true, force: true });
  }, 60_000);
});

describe('seeding reference data (PostgreSQL)', () => {
  it('is one transaction: a seed refused at its last vendor writes no dictionary', async () => {
    const test = await createTestDatabase();
    const database = await openDatabase({ url: test.url, poolSize: 2 });
    try {
      const { tenantId } = await createLendingTenant(database.db, { name: 'Atomic seed lender' });
      const seed = referenceDataSeedSchema.parse(JSON.parse(readFileSync(writeBrokenSeed(), 'utf8')));
      await expect(lending.seedReferenceData({ db: database.db }, { tenantId, seed })).rejects.toMatchObject({
        fields: [expect.objectContaining({ field: 'vendors.0.stores.1.storeId' })],
      });
      const after = await lending.referenceDataOfTenant({ db: database.db }, { tenantId });
      expect({ dictionaries: after.dictionaries, vendors: after.vendors }).toEqual({
        dictionaries: [],
        vendors: [],
      });
    } finally {
      await database.close();
      await test.drop();
    }
  }, 60_000);
});

/**
 * Opens a PGlite folder from another OS process, as a second `npm run admin` would, and closes it:
 * its exit code and output (killed after 20 s: two PGlites on one folder may also hang).
 */
function openInAnotherProcess(pgliteDir: string) {
  const started = Date.now();
  const script =
    "const { openDatabase } = await import('./db/client.ts');" +
    `const database = await openDatabase({ pgliteDir: ${JSON.stringify(pgliteDir)} });` +
    "await database.close(); console.log('opened');";
  return new Promise<{ code: number | null; output: string; ms: number }>((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: root, env, timeout: 20_000 },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (child.exitCode ?? -1) : 0,
          output: stdout + stderr,
          ms: Date.now() - started,
        }),
    );
  });
}

/** The sandbox seed whose first vendor lists one store id twice: refused after its dictionaries. */
function writeBrokenSeed(): string {
  const [vendor, ...others] = SEED.vendors;
  const store = vendor!.stores[0]!;
  const broken = { ...SEED, vendors: [{ ...vendor, stores: [store, store] }, ...others] };
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'broken-seed-')), 'seed.json');
  writeFileSync(file, JSON.stringify(broken));
  return file;
}
