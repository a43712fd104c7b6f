import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBankingOperations } from '../../api/openbanking/index.ts';
import { API_VERSIONS, type ApiVersion } from '../../api/openbanking/versions.ts';
import { type ObCall, openBankingClient } from '../support/openbanking-client.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * The spec's Versions column for the agent, user, hook, identity and key operations, transcribed by
 * hand (not derived from the code), so that a wrong `versions` in an operation definition fails here.
 */
const SPEC_VERSIONS: [method: string, path: string, versions: readonly ApiVersion[] | 'none'][] = [
  ['POST', '/signup', [6, 7, 8]],
  ['POST', '/signup/agent', [7, 8]],
  ['POST', '/usertoken', [6, 7, 8]],
  // `POST /api/{v}/createhook` (6,7,8) and `POST /api/9/createhook` (9): one operation.
  ['POST', '/createhook', [6, 7, 8, 9]],
  ['PUT', '/redirect', [6, 7, 8]],
  ['GET', '/id/status', [6, 7, 8]],
  ['POST', '/agent/ais/email', [8]],
  ['DELETE', '/agent/user', [8]],
  ['POST', '/agent/user/check', [8]],
  ['GET', '/agent/users', [8]],
  ['GET', '/consent/iban/{iban}', [8]],
  ['POST', '/kyc/update', [8]],
  ['POST', '/cache/initial/{bankAccountId}', [8]],
  ['GET', '/.well-known/jwks.json', [6]],
  ['GET', '/.well-known/jwks.json2', [6]],
  ['POST', '/api/cgate/consents-request', 'none'],
  ['GET', '/api/cgate/consents-request/{userHash}', 'none'],
  ['GET', '/api/cgate/ui/consents-request', 'none'],
  // Payment initiation (single payments)
  ['GET', '/payment/ibans/{ibanId}', [6, 7, 8]],
  ['POST', '/payment/sca/{ibanId}', [6, 7, 8]],
  ['POST', '/payment/iban', [6, 7, 8]],
  ['POST', '/payment/direct', [7, 8]],
  ['POST', '/payment/direct-initiate', [8]],
  ['POST', '/budget-request', [6, 7, 8]],
  ['POST', '/budget-request/no-iban', [7, 8]],
  ['POST', '/payment', [6, 7, 8]],
  ['PUT', '/payment', [6, 7, 8]],
  ['PUT', '/payment/verify-sms', [8]],
  ['GET', '/payment/status', [6, 7, 8]],
  ['GET', '/status/{hookHash}', [7, 8]],
  // Bulk payments, payment searches, reports and audit
  ['POST', '/payments', [7, 8]],
  ['POST', '/bulk-payments/payment', [8]],
  ['POST', '/bulk-payments/request', [8]],
  ['POST', '/bulk-payments/budget-payment', [8]],
  ['POST', '/bulk-payments/budget-request', [8]],
  ['GET', '/bulk-payments/status/{hookHash}', [8]],
  ['POST', '/bulk-payments/search', [8]],
  ['POST', '/payments/search-last-updated', [8]],
  ['POST', '/reports/active-users', [8]],
  ['POST', '/reports/active-users-details', [8]],
  ['GET', '/reports/bank-maintenance', [8]],
  ['GET', '/audit-by-bank', [9]],
];

const SAMPLE_PARAMS: Record<string, string> = { iban: 'BG80BNBG96611020345678' };
const fillParams = (path: string) =>
  path.replace(/\{([^}]+)\}/g, (_, name: string) => SAMPLE_PARAMS[name] ?? `sample-${name}`);

/** The versions an operation definition mounts `method path` in (path relative to /api/{v}). */
function definedVersions(method: string, path: string): ApiVersion[] | 'none' | undefined {
  const versions = new Set<ApiVersion>();
  for (const operation of openBankingOperations) {
    for (const mount of operation.mounts) {
      if (mount.method !== method) continue;
      if (mount.version === 'none') {
        if (mount.path === path) return 'none';
      } else if (mount.path === `/api/${mount.version}${path}`) {
        versions.add(mount.version);
      }
    }
  }
  return versions.size > 0 ? [...versions].sort() : undefined;
}

let platform: TestPlatform;
let call: ObCall;

beforeAll(async () => {
  platform = await startTestPlatform();
  call = openBankingClient(platform.openBanking.url);
});
afterAll(async () => {
  await platform?.stop();
});

/**
 * True when the router found no route: 404 `route_not_found`, or 405 `method_not_allowed` where the
 * path is served under other methods, with the JSON error body naming the request.
 */
async function routeMissing(method: string, fullPath: string): Promise<boolean> {
  const response = await call(method, fullPath, method === 'GET' || method === 'DELETE' ? {} : { body: {} });
  // The router's answers are always the JSON error body; a route may answer 404 otherwise (an HTML page).
  if (typeof response.body !== 'object' || response.body === null) return false;
  if (response.status === 405) {
    expect(response.body.error?.code, `${method} ${fullPath}`).toBe('method_not_allowed');
    return (
      response.body.error?.message?.startsWith(`${method} is not served at /openbanking${fullPath};`) ?? false
    );
  }
  if (response.status !== 404 || response.body.error?.code !== 'route_not_found') return false;
  return response.body.error?.message === `No operation serves ${method} /openbanking${fullPath}`;
}

describe('versions', () => {
  it('operation definitions mount each operation in exactly the versions the spec lists', () => {
    for (const [method, path, versions] of SPEC_VERSIONS) {
      expect(definedVersions(method, path), `${method} ${path}`).toEqual(versions);
    }
  });

  it('each spec-listed version answers, each unlisted version is 404 with the JSON error body', async () => {
    for (const [method, path, versions] of SPEC_VERSIONS) {
      if (versions === 'none') {
        expect(await routeMissing(method, fillParams(path)), `${method} ${path}`).toBe(false);
        // An unversioned path does not exist under a version.
        expect(await routeMissing(method, `/api/8${fillParams(path).replace(/^\/api/, '')}`)).toBe(true);
        continue;
      }
      for (const version of API_VERSIONS) {
        const fullPath = `/api/${version}${fillParams(path)}`;
        expect(await routeMissing(method, fullPath), `${method} ${fullPath}`).toBe(
          !versions.includes(version),
        );
      }
    }
  });

  it('every mounted operation of the gateway answers in its versions and only there (from the definitions)', async () => {
    const mounts = openBankingOperations.flatMap((operation) => operation.mounts);
    expect(mounts.length).toBeGreaterThanOrEqual(30);
    for (const mount of mounts) {
      expect(await routeMissing(mount.method, fillParams(mount.path)), `${mount.method} ${mount.path}`).toBe(
        false,
      );
      if (mount.version === 'none') continue;
      const relative = mount.path.slice(`/api/${mount.version}`.length);
      for (const version of API_VERSIONS) {
        const listed = mounts.some(
          (other) => other.method === mount.method && other.path === `/api/${version}${relative}`,
        );
        if (listed) continue;
        expect(await routeMissing(mount.method, `/api/${version}${fillParams(relative)}`)).toBe(true);
      }
    }
    // Versions that do not exist at all.
    expect(await routeMissing('GET', '/api/5/id/status')).toBe(true);
    expect(await routeMissing('GET', '/api/10/id/status')).toBe(true);
  });

  it('serves one OpenAPI document per version, listing only that version’s operations', async () => {
    type Doc = { paths: Record<string, Record<string, { operationId?: string }>> };
    const all = await call<Doc>('GET', '/openapi.json');
    expect(all.status).toBe(200);
    for (const version of API_VERSIONS) {
      const { status, body } = await call<Doc>('GET', `/api/${version}/openapi.json`);
      expect(status).toBe(200);
      const paths = Object.keys(body.paths);
      // This version's paths and the unversioned ones (cgate, the bank callback), no other version's.
      expect(
        paths.filter((path) => /^\/api\/\d+\//.test(path) && !path.startsWith(`/api/${version}/`)),
      ).toEqual([]);
      for (const [method, path, versions] of SPEC_VERSIONS) {
        if (versions === 'none') continue;
        const documented = body.paths[`/api/${version}${path}`]?.[method.toLowerCase()] !== undefined;
        expect(documented, `v${version} ${method} ${path}`).toBe(versions.includes(version));
      }
    }
    expect(Object.keys((await call<Doc>('GET', '/api/9/openapi.json')).body.paths)).toContain(
      '/api/9/createhook',
    );
    expect((await call('GET', '/api/5/openapi.json')).status).toBe(404);
    const docs = await fetch(`${platform.openBanking.url}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('/openbanking/openapi.json');
  });

  it('expresses version differences in the route of each version: x-public-hash on createhook only in 9', async () => {
    const agent = await platform.openBanking.createAgent();
    const hook = { url: 'https://agent.example.com/hook' };
    const v9 = await call('POST', '/api/9/createhook', {
      headers: { 'x-public-hash': agent.publicHash },
      body: hook,
    });
    expect(v9.status).toBe(201);
    const v8 = await call('POST', '/api/8/createhook', {
      headers: { 'x-public-hash': agent.publicHash },
      body: hook,
    });
    expect(v8.status).toBe(401);
    expect(v8.body.error?.code).toBe('unauthorized');
  });

  it('takes the whole SignupDTO in version 8 and the personal fields before it', async () => {
    const agent = await platform.openBanking.createAgent();
    const business = { companyName: 'Acme Ltd', uic: '175074752', webhookUrl: 'https://agent.example.com/u' };
    for (const version of [6, 7, 8]) {
      const email = `v${version}.${Date.now()}@example.com`;
      const signup = await call('POST', `/api/${version}/signup`, {
        headers: { 'x-agent-hash': agent.agentHash },
        body: { name: 'Ivan', family: 'Petrov', email, ...business },
      });
      expect(signup.status).toBe(201);
      const list = await call<{ items: { email: string; companyName: string | null; uic: string | null }[] }>(
        'GET',
        `/api/8/agent/users?text=${encodeURIComponent(email)}`,
        { headers: { 'x-agent-hash': agent.agentHash } },
      );
      expect(list.body.items).toHaveLength(1);
      expect(list.body.items[0]!.companyName).toBe(version === 8 ? 'Acme Ltd' : null);
      expect(list.body.items[0]!.uic).toBe(version === 8 ? '175074752' : null);
    }
  });
});
