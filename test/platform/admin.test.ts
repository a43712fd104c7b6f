import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminApi } from '../../api/admin/index.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789abcdef';
let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ env: { ADMIN_TOKEN } });
});
afterAll(async () => {
  await platform?.stop();
});

const admin = (method: string, path: string, token: string | null = ADMIN_TOKEN, body?: unknown) =>
  fetch(`${platform.apiUrl}/admin${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });

describe('admin endpoints', () => {
  it('issue an account and token that work, and revoke the token', async () => {
    const created = await admin('POST', '/messaging/accounts', ADMIN_TOKEN, { name: 'Acme Ltd' });
    expect(created.status).toBe(201);
    const issued = (await created.json()) as { accountId: string; tokenId: string; token: string };
    expect(issued.token).toMatch(/^at_/);

    const list = () => fetch(`${platform.baseUrl}/sms?at=${encodeURIComponent(issued.token)}`);
    expect((await list()).status).toBe(200);
    expect((await admin('DELETE', `/messaging/tokens/${issued.tokenId}`)).status).toBe(204);
    expect((await list()).status).toBe(401);
    expect((await admin('DELETE', `/messaging/tokens/${issued.tokenId}`)).status).toBe(404);
  });

  it('refuse a missing or wrong admin token with 401, and a bad body with 400', async () => {
    for (const token of [null, 'admin-token-for-tests-0123456789abcdeX']) {
      const response = await admin('POST', '/messaging/accounts', token, { name: 'Mallory' });
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    }
    const bad = await admin('POST', '/messaging/accounts', ADMIN_TOKEN, { name: '' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { fields: { field: string }[] } }).error.fields[0]?.field).toBe(
      'name',
    );
  });
});

describe('every admin endpoint', () => {
  /** Read off the admin app itself, so an endpoint added later is checked too. */
  const endpoints = createAdminApi().openAPIRegistry.definitions.flatMap((definition) =>
    definition.type === 'route'
      ? [{ method: definition.route.method.toUpperCase(), path: definition.route.path }]
      : [],
  );

  it('is listed, the collect settlement ones included', () => {
    const names = endpoints.map(({ method, path }) => `${method} ${path}`);
    for (const name of [
      'POST /collect/merchants',
      'PUT /collect/merchants/{min}/return-origins',
      'PATCH /collect/merchants/{min}',
      'POST /collect/desk-operators',
      'POST /collect/statements',
      'GET /collect/statements/{id}',
      'GET /collect/statements/review',
      'POST /collect/statements/review/{itemId}/resolve',
      'GET /collect/ledger/accounts',
      'GET /collect/provider-accounts/{account}',
      'POST /collect/provider-accounts/{account}/transfers',
      'POST /collect/provider-accounts/{account}/payouts',
    ])
      expect(names).toContain(name);
  });

  it('refuses a missing or wrong admin token with 401 before reading the request', async () => {
    for (const { method, path } of endpoints) {
      const concrete = path.replace(/\{[^}]+\}/g, '1');
      for (const token of [null, 'admin-token-for-tests-0123456789abcdeX', `${ADMIN_TOKEN}x`]) {
        const response = await admin(method, concrete, token, method === 'GET' ? undefined : {});
        expect(response.status, `${method} ${path} (${token ?? 'no token'})`).toBe(401);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
      }
    }
  });
});

describe('admin endpoints without ADMIN_TOKEN', () => {
  let plain: TestPlatform;
  beforeAll(async () => {
    plain = await startTestPlatform();
  });
  afterAll(async () => {
    await plain?.stop();
  });

  it('do not exist', async () => {
    const response = await fetch(`${plain.apiUrl}/admin/messaging/accounts`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer anything-at-all-0123456789abcdef0123',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ name: 'x' }),
    });
    expect(response.status).toBe(404);
  });
});
