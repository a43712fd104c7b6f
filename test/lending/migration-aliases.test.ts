import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lendingOperations } from '../../api/lending/index.ts';
import { LENDING_API_PREFIX } from '../../api/lending/paths.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createCreditProduct } from './products-support.ts';
import { createLendingTenant, type LendingTestTenant, lendingCall } from './support.ts';

/**
 * The spec's `/Migration/` paths ("some management operations keep an old URL under /Migration/ that
 * works as well") are aliases of their Management operations. Derived from the operation definitions
 * (every mount under /Migration/ and its operation's documented mount), never a hand list: each is in
 * `/lending/openapi.json` as its counterpart is, and answers exactly as it does.
 */

let platform: TestPlatform;
let tenant: LendingTestTenant;

beforeAll(async () => {
  platform = await startTestPlatform();
  tenant = await createLendingTenant(platform);
  await createCreditProduct(platform, tenant.tenantId);
});
afterAll(async () => {
  await platform?.stop();
});

const relative = (path: string) => path.slice(LENDING_API_PREFIX.length);
const MIGRATION = `${LENDING_API_PREFIX}/Migration/`;

/** Every /Migration/ mount with the operation's own (first, documented) mount of the same method. */
const pairs = lendingOperations.flatMap((operation) =>
  operation.mounts
    .filter((mount) => mount.path.startsWith(MIGRATION))
    .map((alias) => {
      const own = operation.mounts.find(
        (mount) => mount.method === alias.method && !mount.path.startsWith(MIGRATION),
      );
      if (!own) throw new Error(`${alias.method} ${alias.path}: no counterpart outside /Migration/`);
      return { method: alias.method, alias: relative(alias.path), own: relative(own.path) };
    }),
);

/** Path parameters filled with ids that exist nowhere; the same for both paths. */
const fill = (path: string) => path.replace(/\{([^}]+)\}/g, (_, name: string) => `x-${name}`);

describe('/Migration/ aliases', () => {
  it('are derived from the definitions (the five served today at least)', () => {
    expect(pairs.length).toBeGreaterThanOrEqual(5);
    expect(pairs.map((pair) => `${pair.method} ${pair.alias}`)).toContain('GET /Migration/BranchOffices');
  });

  it('are in /lending/openapi.json, each described as its counterpart', async () => {
    const document = (await (await fetch(`${platform.apiUrl}/lending/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    for (const { method, alias, own } of pairs) {
      const documented = document.paths[`${LENDING_API_PREFIX}${alias}`]?.[method.toLowerCase()];
      expect(documented, `${method} ${alias} in the OpenAPI document`).toBeDefined();
      expect(documented, `${method} ${alias}`).toEqual(
        document.paths[`${LENDING_API_PREFIX}${own}`]?.[method.toLowerCase()],
      );
    }
  });

  it('answer exactly as their counterparts: no key, the wrong key, broken and empty input, a real read', async () => {
    const probes: { name: string; request: Parameters<typeof lendingCall>[3] }[] = [
      { name: 'no key', request: {} },
      { name: 'front-office key', request: { key: tenant.keys.frontOffice } },
      { name: 'unknown key', request: { key: 'lk_not-a-key' } },
      { name: 'broken JSON', request: { key: tenant.keys.management, body: '{"broken":' } },
      { name: 'empty body', request: { key: tenant.keys.management, body: {} } },
      { name: 'management key', request: { key: tenant.keys.management } },
    ];
    for (const { method, alias, own } of pairs) {
      for (const { name, request } of probes) {
        // A body only where the method takes one; a read is the real answer (the tenant has a product).
        if (method === 'GET' && request?.body !== undefined) continue;
        const [mine, theirs] = await Promise.all(
          [alias, own].map((path) => lendingCall(platform, method, fill(path), request)),
        );
        const label = `${method} ${alias} (${name}) as ${own}`;
        expect(mine?.status, label).toBe(theirs?.status);
        expect(mine?.body, label).toEqual(theirs?.body);
        expect(mine?.headers.get('content-type'), label).toBe(theirs?.headers.get('content-type'));
      }
    }
  });
});
