import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createLendingTenant, type LendingTestTenant, lendingCall } from './support.ts';

/**
 * What the reference-data tests share (reference-data.test.ts, reference-data-vendors.test.ts): a platform
 * with three tenants (seeded by the command, written through the admin API, bare), the admin API and
 * command, the front-office call and the error's fields.
 */

const ADMIN_TOKEN = 'admin-token-for-lending-reference-data-0123';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SEED = JSON.parse(
  readFileSync(path.join(root, 'datasets/lending-reference-data.json'), 'utf8'),
) as {
  dictionaries: { name: string; values: unknown[] }[];
  vendors: { vendorId: string; stores: { storeId: string }[] }[];
};

export let platform: TestPlatform;
/** Seeded by the command from the dataset. */
export let seeded: LendingTestTenant;
/** Written through the admin API: a dictionary and a vendor of its own. */
export let other: LendingTestTenant;
/** Nothing set: the defaults. */
export let bare: LendingTestTenant;

export const admin = async (method: string, adminPath: string, body?: unknown) => {
  const response = await fetch(`${platform.apiUrl}/admin${adminPath}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: (text ? JSON.parse(text) : {}) as Record<string, unknown> & {
      error?: { code: string; fields?: { field: string; message: string }[] };
    },
  };
};

/** `npm run admin -- <args>` against the test platform's database. */
export async function adminCommand(...args: string[]) {
  return promisify(execFile)(process.execPath, ['--import', 'tsx', 'cmd/admin.ts', ...args], {
    cwd: root,
    env: { ...process.env, ...platform.env },
  });
}

export const fieldsOf = (answer: { body: { error?: { fields?: { field: string }[] } } }) =>
  (answer.body.error?.fields ?? []).map((field) => field.field);

/** One platform per test file, with the three tenants. */
export function useReferenceDataPlatform(): void {
  beforeAll(async () => {
    platform = await startTestPlatform({ env: { ADMIN_TOKEN } });
    [seeded, other, bare] = await Promise.all([
      createLendingTenant(platform),
      createLendingTenant(platform),
      createLendingTenant(platform),
    ]);
    const { stdout } = await adminCommand('lending:seed-reference-data', '--tenant', seeded.tenantId);
    expect(JSON.parse(stdout)).toMatchObject({ dictionaries: expect.arrayContaining(['Cities', 'Regions']) });
    expect(
      (
        await admin('PUT', `/lending/tenants/${other.tenantId}/dictionaries/Cities`, {
          values: [{ code: 'sofia', name: 'Sofia' }],
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await admin('PUT', `/lending/tenants/${other.tenantId}/vendors/other-shop`, {
          name: 'Other shop',
          stores: [
            {
              storeId: 'other-1',
              name: 'Other 1',
              address: 'Vitosha 1, Sofia',
              latitude: 42.69,
              longitude: 23.32,
            },
          ],
        })
      ).status,
    ).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await platform?.stop();
  });
}

export const front = (tenant: LendingTestTenant, method: string, specPath: string, request = {}) =>
  lendingCall<Record<string, unknown>>(platform, method, specPath, {
    key: tenant.keys.frontOffice,
    ...request,
  });
