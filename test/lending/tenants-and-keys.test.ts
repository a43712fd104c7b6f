import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lendingApiKeys, lendingTenants } from '../../db/schema/lending.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { lendingCall } from './support.ts';

const ADMIN_TOKEN = 'lending-admin-token-0123456789abcdef0123';
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { ADMIN_TOKEN } });
});
afterAll(async () => {
  await platform?.stop();
});

async function admin<T = Record<string, unknown>>(method: string, path: string, body?: unknown) {
  const response = await fetch(`${platform.apiUrl}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: (text ? JSON.parse(text) : {}) as T & { error?: { code: string } },
  };
}

interface CreatedTenant {
  tenantId: string;
  stagingTenantId: string;
  siteDomains: string[];
  features: { stateManagement: boolean; multipleOffers: boolean };
}

describe('tenants', () => {
  it('are created by the operator with a staging tenant beside the production one', async () => {
    const created = await admin<CreatedTenant>('POST', '/lending/tenants', {
      name: 'Acme Loans',
      siteDomains: ['Loans.Acme.Example'],
      stagingSiteDomains: ['staging.loans.acme.example'],
      features: { stateManagement: true },
      states: ['CA', 'NY'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      siteDomains: ['loans.acme.example'],
      features: { stateManagement: true, multipleOffers: false },
    });
    const rows = await platform.db.select().from(lendingTenants);
    const production = rows.find((row) => row.id === created.body.tenantId);
    const staging = rows.find((row) => row.id === created.body.stagingTenantId);
    expect(production).toMatchObject({
      environment: 'production',
      productionTenantId: null,
      name: 'Acme Loans',
    });
    expect(staging).toMatchObject({ environment: 'staging', productionTenantId: created.body.tenantId });

    const read = await admin('GET', `/lending/tenants/${created.body.tenantId}`);
    expect(read.body).toMatchObject({ siteDomains: ['loans.acme.example'], states: ['CA', 'NY'] });
  });

  it('a site domain belongs to one tenant only (409 site_domain_taken)', async () => {
    await admin('POST', '/lending/tenants', { name: 'First', siteDomains: ['one.example'] });
    const second = await admin('POST', '/lending/tenants', { name: 'Second', siteDomains: ['ONE.example'] });
    expect(second.status).toBe(409);
    expect(second.body.error?.code).toBe('site_domain_taken');
    const invalid = await admin('POST', '/lending/tenants', { name: 'Bad', siteDomains: ['not a domain'] });
    expect(invalid.status).toBe(400);
  });

  it('the admin endpoints need the admin token', async () => {
    const response = await fetch(`${platform.apiUrl}/admin/lending/tenants`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x' }),
    });
    expect(response.status).toBe(401);
  });
});

describe('API keys', () => {
  it('are random, shown once, stored as SHA-256 digests, with levels and a year’s expiry by default', async () => {
    const tenant = await admin<CreatedTenant>('POST', '/lending/tenants', { name: 'Keys Ltd' });
    const issued = await admin<{ keyId: string; apiKey: string; expiresAt: string; permissions: string[] }>(
      'POST',
      `/lending/tenants/${tenant.body.tenantId}/api-keys`,
      { permissions: ['management', 'front_office'], label: 'back office' },
    );
    expect(issued.status).toBe(201);
    expect(issued.body.apiKey).toMatch(/^lak_[A-Za-z0-9_-]{43}$/);
    expect(issued.body.permissions).toEqual(['front_office', 'management']);
    const days = (Date.parse(issued.body.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(364);
    expect(days).toBeLessThan(366);
    const stored = JSON.stringify(await platform.db.select().from(lendingApiKeys));
    expect(stored).not.toContain(issued.body.apiKey);
    expect(stored).toContain(createHash('sha256').update(issued.body.apiKey).digest('hex'));

    const other = await admin<{ apiKey: string }>(
      'POST',
      `/lending/tenants/${tenant.body.tenantId}/api-keys`,
      {
        permissions: ['front_office'],
      },
    );
    expect(other.body.apiKey).not.toBe(issued.body.apiKey);
  });

  it('an unknown tenant gets no key (404); an empty level list is refused (400)', async () => {
    expect(
      (await admin('POST', '/lending/tenants/ten_nope/api-keys', { permissions: ['management'] })).status,
    ).toBe(404);
    const tenant = await admin<CreatedTenant>('POST', '/lending/tenants', { name: 'Empty' });
    expect(
      (await admin('POST', `/lending/tenants/${tenant.body.tenantId}/api-keys`, { permissions: [] })).status,
    ).toBe(400);
  });

  it('are never issued already expired (400 naming expiresAt)', async () => {
    const tenant = await admin<CreatedTenant>('POST', '/lending/tenants', { name: 'Past Ltd' });
    const path = `/lending/tenants/${tenant.body.tenantId}/api-keys`;
    for (const expiresAt of [new Date(Date.now() - 60_000).toISOString(), '2001-01-01T00:00:00Z']) {
      const refused = await admin<{ error: { fields: { field: string }[] } }>('POST', path, {
        permissions: ['front_office'],
        expiresAt,
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.fields.map((f) => f.field)).toEqual(['expiresAt']);
    }
  });

  it('work until they expire or are revoked', async () => {
    const tenant = await admin<CreatedTenant>('POST', '/lending/tenants', { name: 'Expiry Ltd' });
    const issued = await admin<{ keyId: string; apiKey: string }>(
      'POST',
      `/lending/tenants/${tenant.body.tenantId}/api-keys`,
      { permissions: ['front_office'], expiresAt: new Date(Date.now() + 60_000).toISOString() },
    );
    const reasons = () =>
      lendingCall(platform, 'GET', '/Dictionary/CancellationReasons', { key: issued.body.apiKey });
    expect((await reasons()).status).toBe(200);

    await platform.db
      .update(lendingApiKeys)
      .set({ expiresAt: new Date(Date.now() - 1) })
      .where(eq(lendingApiKeys.id, issued.body.keyId));
    // A change made in the database reaches the API's credential cache by notification (decision 0065).
    await eventually(async () => ((await reasons()).status === 401 ? true : undefined), 2_000);

    const second = await admin<{ keyId: string; apiKey: string }>(
      'POST',
      `/lending/tenants/${tenant.body.tenantId}/api-keys`,
      { permissions: ['front_office'] },
    );
    const withSecond = () =>
      lendingCall(platform, 'GET', '/Dictionary/CancellationReasons', { key: second.body.apiKey });
    expect((await withSecond()).status).toBe(200);
    expect((await admin('DELETE', `/lending/api-keys/${second.body.keyId}`)).status).toBe(204);
    expect((await withSecond()).status).toBe(401);
    expect((await admin('DELETE', `/lending/api-keys/${second.body.keyId}`)).status).toBe(404);
  });

  it('new tenants start with the default cancellation reasons; only front-office ones are listed', async () => {
    const tenant = await admin<CreatedTenant>('POST', '/lending/tenants', { name: 'Reasons Ltd' });
    const key = await admin<{ apiKey: string }>('POST', `/lending/tenants/${tenant.body.tenantId}/api-keys`, {
      permissions: ['front_office', 'management'],
    });
    await admin('POST', `/lending/tenants/${tenant.body.tenantId}/cancellation-reasons`, {
      name: 'Internal only',
      frontOffice: false,
    });
    await admin('POST', `/lending/tenants/${tenant.body.tenantId}/cancellation-reasons`, {
      name: 'Moved abroad',
      frontOffice: true,
    });
    const listed = await lendingCall<{ items: { reasonId: string; name: string }[] }>(
      platform,
      'GET',
      '/Dictionary/CancellationReasons',
      { key: key.body.apiKey },
    );
    expect(listed.body.items.map((reason) => reason.name)).toEqual([
      'Changed my mind',
      'Found a better offer',
      'Loan no longer needed',
      'Moved abroad',
    ]);

    await admin('POST', `/lending/tenants/${tenant.body.tenantId}/branch-offices`, {
      name: 'Downtown',
      address: '1 Main St',
    });
    for (const path of ['/Management/BranchOffices', '/Migration/BranchOffices']) {
      const offices = await lendingCall<{ items: { name: string; address: string }[] }>(
        platform,
        'GET',
        path,
        {
          key: key.body.apiKey,
        },
      );
      expect(offices.status, path).toBe(200);
      expect(offices.body.items).toMatchObject([{ name: 'Downtown', address: '1 Main St' }]);
    }
  });
});
