import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  provisionSandboxParties,
  SANDBOX_COLLECT_MIN,
  SANDBOX_PARTIES_FILE,
  type SandboxParties,
} from '../../cmd/sandbox-parties.ts';
import { writePrivateFile } from '../../platform/data-dir.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * `npm run demo` end to end against the platform wired as `npm start` wires it in sandbox mode: the
 * sandbox parties provisioned as `npm start` provisions them (into a DATA_DIR of the test's), then the
 * demo script run as a process with only DATA_DIR set. It must walk all four services and exit 0.
 */

const ADMIN_TOKEN = 'admin-token-for-the-demo-test-0123456789abcdef';
let platform: TestPlatform;
let dataDir: string;
let parties: SandboxParties;

const sandboxHosts = () => ({
  merchant: platform.sandbox.merchant,
  providersUrl: platform.sandbox.http.url,
  secondSmscUrl: platform.sandbox.smpp2.url,
});

beforeAll(async () => {
  platform = await startTestPlatform({ env: { ADMIN_TOKEN } });
  dataDir = mkdtempSync(path.join(tmpdir(), 'demo-data-'));
  const provisioned = await provisionSandboxParties(platform.db, platform.config, {
    dataDir,
    apiUrl: platform.apiUrl,
    temporalUiUrl: 'http://127.0.0.1:8233',
    sandbox: sandboxHosts(),
  });
  if (!provisioned) throw new Error('nothing provisioned in sandbox mode');
  parties = provisioned;
  writePrivateFile(path.join(dataDir, 'sandbox-token'), `${platform.token}\n`);
});
afterAll(async () => {
  await platform?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function runDemo(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'cmd/demo.ts'], {
      env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('the sandbox parties', () => {
  it('are written owner-only, and provisioned again at the next start with the same merchant and tenant', async () => {
    const file = path.join(dataDir, SANDBOX_PARTIES_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(JSON.parse(JSON.stringify(parties)));
    expect(parties.collect.min).toBe(SANDBOX_COLLECT_MIN);
    expect(parties.adminToken).toBe(ADMIN_TOKEN);

    const again = await provisionSandboxParties(platform.db, platform.config, {
      dataDir,
      apiUrl: platform.apiUrl,
      sandbox: sandboxHosts(),
    });
    expect(again?.collect).toEqual(parties.collect);
    expect(again?.lending.tenantId).toBe(parties.lending.tenantId);
    // Fresh keys; the previous start's are revoked.
    expect(again?.lending.keys.frontOffice).not.toBe(parties.lending.keys.frontOffice);
    const old = await fetch(`${platform.apiUrl}/lending/PublicApi/v7-12/Customer/States`, {
      headers: { lender_ApiKey: parties.lending.keys.frontOffice },
    });
    expect(old.status).toBe(401);
    parties = again as SandboxParties;
  });

  it('are not provisioned in production mode', async () => {
    const production = { ...platform.config, PLATFORM_MODE: 'production' as const };
    expect(
      await provisionSandboxParties(platform.db, production, {
        dataDir,
        apiUrl: platform.apiUrl,
        sandbox: sandboxHosts(),
      }),
    ).toBeUndefined();
  });
});

describe('npm run demo', () => {
  it('walks messaging, collection, open banking and lending with no setup and exits 0', async () => {
    const started = Date.now();
    const { code, output } = await runDemo();
    expect(code, output).toBe(0);
    expect(Date.now() - started).toBeLessThan(60_000);
    // The operator's step, with the provisioned operator token.
    expect(output).toMatch(/POST \/admin\/messaging\/sender-ids\/\S+\/approve \(the operator\) → 200/);
    // The operator's carriers and route: the first carrier answers nothing, the second SMSC delivers.
    expect(output).toContain('PUT /admin/messaging/routes/demo-failover (the operator) → 200');
    expect(output).toMatch(/delivered through carrier demo-second \(demo-down answered nothing\)/);
    const failover = (sms: { destination: string }) => sms.destination === '359899000777';
    expect(platform.sandbox.smpp2.submitted.filter(failover)).toHaveLength(1);
    expect(platform.sandbox.smpp.submitted.filter(failover)).toHaveLength(0);
    // Collection: registered, paid at the demo office, PAID verified at the sandbox merchant.
    expect(output).toContain('GET /collect/office/reg_bill.cgi → 200');
    expect(output).toContain('GET /collect/office/pay_bill.cgi → 200');
    expect(output).toMatch(/CHECKSUM verified .* SIGNATURE verified/);
    // Open banking: the consent and a payment with SCA.
    expect(output).toContain('"status":"CONFIRMED"');
    // Lending: signed with the handset's codes, Active.
    expect(output).toContain('/Customer/Loans/');
    expect(output).toMatch(/SignDocument → 200[\s\S]*SignDocument → 200/);
    expect(output).toContain('"status":"Active"');
    expect(output).toContain('/namespaces/default/workflows/lending-loan-');
  }, 90_000);
});
