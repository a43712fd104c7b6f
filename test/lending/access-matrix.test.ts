import { request as httpRequest } from 'node:http';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lendingOperations } from '../../api/lending/index.ts';
import { issueApiKey } from '../../credentials/lending/api-keys.ts';
import { lendingApiKeys } from '../../db/schema/lending.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createLendingTenant, type LendingTestTenant, lendingCall, registerCustomer } from './support.ts';

/**
 * The access matrix of the lending platform, derived from `lendingOperations` themselves (every mount:
 * documented paths and /Migration/ aliases): each key level reaches only its modules, nothing is
 * reached without a key, a key or token never reaches another tenant.
 */

let platform: TestPlatform;
let tenantA: LendingTestTenant;
let tenantB: LendingTestTenant;
let customerA: Awaited<ReturnType<typeof registerCustomer>>;
let customerB: Awaited<ReturnType<typeof registerCustomer>>;
/** An investor of tenant A's token: Investor/* acts for investors only (decision 0052). */
let investorA: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenantA = await createLendingTenant(platform);
  tenantB = await createLendingTenant(platform);
  customerA = await registerCustomer(platform, tenantA);
  customerB = await registerCustomer(platform, tenantB);
  const investor = await lendingCall<{ userAuthToken: string }>(platform, 'POST', '/Investor/Register', {
    key: tenantA.keys.frontOffice,
    query: { login: 'investor-a@example.com', password: 'investor-a-password' },
  });
  investorA = investor.body.userAuthToken;
});
afterAll(async () => {
  await platform?.stop();
});

const PREFIX = '/PublicApi/v7-12';

/** The permission level each module needs (decision 0037), written out here, not read from the code. */
const LEVEL_OF_MODULE: Record<string, 'frontOffice' | 'management' | 'paymentOptions'> = {
  Customer: 'frontOffice',
  User: 'frontOffice',
  Dictionary: 'frontOffice',
  Investor: 'frontOffice',
  Settings: 'frontOffice',
  Vendors: 'frontOffice',
  Management: 'management',
  Migration: 'management',
  PaymentOptions: 'paymentOptions',
};

interface Mount {
  method: string;
  path: string;
  specPath: string;
  level: 'frontOffice' | 'management' | 'paymentOptions';
  needsUser: boolean;
}

/** Every mount with its module's level; whether it needs the user token is read from the OpenAPI document. */
async function mounts(): Promise<Mount[]> {
  const document = (await (await fetch(`${platform.apiUrl}/lending/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
  };
  const userRoutes = new Set(
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => (operation.security ?? []).some((alt) => 'lenderUserAuthToken' in alt))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    ),
  );
  return lendingOperations.flatMap((operation) =>
    operation.mounts.map((mount) => {
      expect(mount.path.startsWith(PREFIX), mount.path).toBe(true);
      const specPath = mount.path.slice(PREFIX.length);
      const module = specPath.split('/')[1] ?? '';
      const level = LEVEL_OF_MODULE[module];
      expect(level, `module of ${mount.path}`).toBeDefined();
      return {
        method: mount.method,
        path: mount.path,
        specPath,
        level: level!,
        needsUser: userRoutes.has(`${mount.method} ${mount.path}`),
      };
    }),
  );
}

/** Path parameters filled with ids that exist nowhere (the checks come before any lookup). */
const fill = (specPath: string) => specPath.replace(/\{([^}]+)\}/g, (_, name: string) => `x-${name}`);

const call = (mount: Mount, options: Parameters<typeof lendingCall>[3]) =>
  lendingCall(platform, mount.method, fill(mount.specPath), {
    ...(mount.method === 'GET' || mount.method === 'DELETE' ? {} : { body: '{"broken":' }),
    ...options,
  });

describe('access matrix', () => {
  it('publishes the OpenAPI document with both credentials, and a reference page', async () => {
    const document = (await (await fetch(`${platform.apiUrl}/lending/openapi.json`)).json()) as {
      components: { securitySchemes: Record<string, { in: string; name: string }> };
    };
    expect(document.components.securitySchemes).toMatchObject({
      lenderApiKey: { in: 'header', name: 'lender_ApiKey' },
      lenderUserAuthToken: { in: 'header', name: 'lender_UserAuthToken' },
    });
    const docs = await fetch(`${platform.apiUrl}/lending/docs`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toContain('text/html');
  });

  it('covers the operations of this slice', async () => {
    const all = await mounts();
    const names = all.map((mount) => `${mount.method} ${mount.specPath}`);
    for (const expected of [
      'POST /Customer/Register',
      'GET /Customer/Details',
      'PUT /Customer/Details',
      'POST /User/Login',
      'GET /Management/Customers/Search',
      'POST /Migration/Customers/Create',
      'PUT /Migration/Customers/{customerId}',
      'GET /Migration/BranchOffices',
      'GET /Dictionary/CancellationReasons',
      'POST /Investor/Register',
      'POST /Investor/Bids/Submit',
      'DELETE /Investor/Bids/{id}',
      'GET /Investor/ActiveInvestments/{id}',
      'POST /Dictionary/GetFilteredValues',
      'GET /Settings/Application/CoApplicant',
      'GET /Vendors/GetStores/{vendorId}',
    ]) {
      expect(names).toContain(expected);
    }
  });

  it('every operation without a key is 401 before its input is validated', async () => {
    for (const mount of await mounts()) {
      const answer = await call(mount, { key: null });
      expect(answer.status, `${mount.method} ${mount.path}`).toBe(401);
      expect(answer.body.error?.code).toBe('unauthorized');
    }
  });

  it('every operation refuses unknown, expired and revoked keys with 401', async () => {
    // A key is never issued already expired: this one expires after it was issued.
    const expired = await issueApiKey(platform.db, {
      tenantId: tenantA.tenantId,
      permissions: ['front_office', 'management', 'payment_options'],
    });
    await platform.db
      .update(lendingApiKeys)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(lendingApiKeys.id, expired.keyId));
    const revoked = await issueApiKey(platform.db, {
      tenantId: tenantA.tenantId,
      permissions: ['front_office', 'management', 'payment_options'],
    });
    await platform.db
      .update(lendingApiKeys)
      .set({ revokedAt: new Date() })
      .where(eq(lendingApiKeys.id, revoked.keyId));
    const unknown = `lak_${'A'.repeat(43)}`;
    for (const mount of await mounts()) {
      for (const key of [unknown, expired.apiKey, revoked.apiKey, 'not-a-key']) {
        const answer = await call(mount, { key });
        expect(answer.status, `${mount.method} ${mount.path}`).toBe(401);
      }
    }
  });

  it('each key level reaches only its modules: another level is 403 insufficient_permission', async () => {
    const levels = ['frontOffice', 'management', 'paymentOptions'] as const;
    for (const mount of await mounts()) {
      for (const level of levels) {
        const token = mount.specPath.startsWith('/Investor/') ? investorA : customerA.token;
        const answer = await call(mount, { key: tenantA.keys[level], token });
        const name = `${mount.method} ${mount.path} with ${level}`;
        if (level === mount.level) {
          // Past the gate: whatever the operation answers, it is not a credential refusal.
          expect([401, 403], name).not.toContain(answer.status);
        } else {
          expect(answer.status, name).toBe(403);
          expect(answer.body.error?.code, name).toBe('insufficient_permission');
        }
      }
    }
  });

  it('a route that acts for a person needs a user token of the key’s tenant', async () => {
    const userMounts = (await mounts()).filter((mount) => mount.needsUser);
    expect(userMounts.length).toBeGreaterThanOrEqual(4);
    for (const mount of userMounts) {
      const key = tenantA.keys[mount.level];
      const name = `${mount.method} ${mount.path}`;
      expect((await call(mount, { key })).status, `${name} without token`).toBe(401);
      expect((await call(mount, { key, token: `lut_${'B'.repeat(43)}` })).status, `${name} forged`).toBe(401);
      // B's token with A's key: another tenant's token is 401.
      expect((await call(mount, { key, token: customerB.token })).status, `${name} other tenant`).toBe(401);
    }
  });

  it('Investor/* acts for investors only: a customer’s token is 403 not_an_investor', async () => {
    const investorMounts = (await mounts()).filter(
      (mount) => mount.needsUser && mount.specPath.startsWith('/Investor/') && mount.method !== 'PUT',
    );
    expect(investorMounts.length).toBeGreaterThanOrEqual(8);
    for (const mount of investorMounts) {
      const answer = await call(mount, {
        key: tenantA.keys.frontOffice,
        token: customerA.token,
        ...(mount.method === 'POST' ? { body: { loanId: '1', amount: '1.00' } } : {}),
      });
      expect(answer.status, `${mount.method} ${mount.path}`).toBe(403);
      expect(answer.body.error?.code).toBe('not_an_investor');
    }
  });

  it('a key never reaches another tenant’s customer: 404 and never data', async () => {
    const management = tenantA.keys.management;
    for (const [method, path] of [
      ['GET', `/Management/Customers/${customerB.customerId}`],
      ['PUT', `/Management/Customers/${customerB.customerId}`],
      ['PUT', `/Migration/Customers/${customerB.customerId}`],
      ['GET', `/Management/Customers/${customerB.customerId}/BankAccounts`],
      ['POST', `/Management/Customers/${customerB.customerId}/BankAccounts`],
      ['DELETE', `/Management/Customers/${customerB.customerId}/BankAccounts/x-profile`],
    ] as const) {
      const body =
        method === 'POST'
          ? { iban: 'DE89370400440532013000' }
          : method === 'PUT'
            ? { firstName: 'Mallory' }
            : undefined;
      const answer = await lendingCall(platform, method, path, {
        key: management,
        ...(body ? { body } : {}),
      });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.error?.code).toBe('not_found');
      expect(JSON.stringify(answer.body)).not.toContain(customerB.login);
    }
    const search = await lendingCall<{ total: number }>(platform, 'GET', '/Management/Customers/Search', {
      key: management,
    });
    expect(JSON.stringify(search.body)).not.toContain(customerB.customerId);
  });

  it('a staging tenant is another tenant: its key does not reach production data', async () => {
    const staging = await issueApiKey(platform.db, {
      tenantId: tenantA.stagingTenantId,
      permissions: ['management'],
    });
    const answer = await lendingCall(platform, 'GET', `/Management/Customers/${customerA.customerId}`, {
      key: staging.apiKey,
    });
    expect(answer.status).toBe(404);
  });

  it('on a tenant’s site domain only that tenant’s key is accepted (401 otherwise)', async () => {
    const get = (host: string, key: string) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(`${platform.apiUrl}/lending${PREFIX}/Dictionary/CancellationReasons`);
        const request = httpRequest(
          {
            hostname: url.hostname,
            port: url.port,
            path: url.pathname,
            headers: { host, lender_ApiKey: key },
          },
          (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode ?? 0));
          },
        );
        request.on('error', reject);
        request.end();
      });
    expect(await get(tenantA.domain, tenantA.keys.frontOffice)).toBe(200);
    expect(await get(`${tenantA.domain.toUpperCase()}:443`, tenantA.keys.frontOffice)).toBe(200);
    expect(await get(tenantA.domain, tenantB.keys.frontOffice)).toBe(401);
    expect(await get(tenantB.domain, tenantA.keys.frontOffice)).toBe(401);
    // A host that is no tenant's site (the platform's own address): the key decides.
    expect(await get('api.platform.test', tenantB.keys.frontOffice)).toBe(200);
  });
});
