import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCollectClient, parseLines } from '../../clients/src/collect.ts';
import { createLendingClient } from '../../clients/src/lending.ts';
import { createMessagingClient } from '../../clients/src/messaging.ts';
import { createOpenBankingClient } from '../../clients/src/openbanking.ts';
import {
  CLIENT_DOCUMENTS,
  CLIENT_SERVICES,
  generatedFile,
  type OpenApiDocument,
  renderClientTypes,
} from '../../cmd/client-generate.ts';
import { formatExpTime } from '../../domain/epay-time.ts';
import { completeDetails, createLendingTenant } from '../lending/support.ts';
import { TEST_SENDER_NUMBERS } from '../support/isolated-platform.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * The typed client (clients/, decision 0058): its generated types are what `npm run client:generate`
 * renders from the documents a running platform serves (a route changed without regenerating fails here,
 * so in CI), and each service's client makes real calls, with its credential, against the platform and
 * its worker, reading successes and typed errors.
 */

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform?.stop();
});

describe('the generated types', () => {
  it.each(CLIENT_SERVICES)('of %s are the ones rendered from the served document', async (service) => {
    const response = await fetch(`${platform.apiUrl}${CLIENT_DOCUMENTS[service]}`);
    expect(response.status).toBe(200);
    const rendered = await renderClientTypes(service, (await response.json()) as OpenApiDocument);
    const checkedIn = readFileSync(generatedFile(service), 'utf8');
    // A difference means an operation changed without `npm run client:generate`: run it and commit.
    expect(
      checkedIn === rendered,
      `clients/src/generated/${service}.ts is stale: npm run client:generate`,
    ).toBe(true);
  });
});

describe('the client package', () => {
  it("has the platform's version: a release ships the client of its documents", () => {
    const version = (file: string) =>
      (JSON.parse(readFileSync(new URL(file, import.meta.url), 'utf8')) as { version: string }).version;
    expect(version('../../clients/package.json')).toBe(version('../../package.json'));
  });
});

describe('the typed clients', () => {
  it('messaging: sends an SMS with the access token and reads it delivered; a typed 404', async () => {
    const messaging = createMessagingClient(platform.apiUrl, platform.token);
    const sent = await messaging.POST('/sms', {
      body: { to: '+359888123456', from: TEST_SENDER_NUMBERS[0], message: 'Hello from the typed client' },
    });
    expect(sent.response.status, JSON.stringify(sent.error)).toBe(202);
    const id = sent.data?.id ?? '';
    const delivered = await eventually(async () => {
      const { data } = await messaging.GET('/sms/{id}', { params: { path: { id } } });
      return data?.status === 'delivered' ? data : undefined;
    });
    expect(delivered.id).toBe(id);

    const missing = await messaging.GET('/sms/{id}', { params: { path: { id: randomUUID() } } });
    expect(missing.response.status).toBe(404);
    expect(missing.data).toBeUndefined();
    expect(missing.error?.error.code).toBe('not_found');

    const stranger = createMessagingClient(platform.apiUrl, 'at_not-a-token');
    const refused = await stranger.GET('/sms/{id}', { params: { path: { id } } });
    expect(refused.response.status).toBe(401);
    expect(refused.error?.error.code).toBe('unauthorized');
  });

  it('payment collection: registers an obligation with a signed packet; a bad checksum is ERR=BAD_CHECKSUM', async () => {
    const merchant = await platform.createSandboxMerchant();
    const collect = createCollectClient(platform.apiUrl, merchant);
    const invoice = `${Date.now()}`.slice(-9);
    const packet = collect.packet({
      INVOICE: invoice,
      AMOUNT: '22.80',
      EXP_TIME: formatExpTime(new Date(Date.now() + 86_400_000)),
      DESCR: 'Typed client',
      ENCODING: 'utf-8',
    });
    const registered = await collect.GET('/office/reg_bill.cgi', {
      params: { query: packet },
      parseAs: 'text',
    });
    expect(registered.response.status, registered.error).toBe(200);
    expect(parseLines(registered.data ?? '').IDN).toMatch(/^\d{10}$/);

    const forged = await collect.GET('/office/reg_bill.cgi', {
      params: { query: { ...packet, CHECKSUM: '0'.repeat(40) } },
      parseAs: 'text',
    });
    expect(forged.response.status).toBe(401);
    expect(parseLines(forged.error ?? '').ERR).toBe('BAD_CHECKSUM');
  });

  it("lending: registers a customer with the tenant's key and reads it with the user token; a typed 400 names the field", async () => {
    const tenant = await createLendingTenant(platform);
    const site = createLendingClient(platform.apiUrl, { apiKey: tenant.keys.frontOffice });
    const login = `typed-${randomBytes(4).toString('hex')}@example.com`;
    const password = `pw-${randomBytes(9).toString('base64url')}`;
    const registered = await site.POST('/PublicApi/v7-12/Customer/Register', {
      params: { query: { login, password } },
      body: completeDetails({ email: login }),
    });
    expect(registered.response.status, JSON.stringify(registered.error)).toBe(201);

    const customer = createLendingClient(platform.apiUrl, {
      apiKey: tenant.keys.frontOffice,
      userAuthToken: registered.data?.userAuthToken ?? '',
    });
    const details = await customer.GET('/PublicApi/v7-12/Customer/Details');
    expect(details.response.status, JSON.stringify(details.error)).toBe(200);
    expect(details.data?.customerId).toBe(registered.data?.customerId);

    const refused = await site.POST('/PublicApi/v7-12/Customer/Register', {
      params: { query: { login: `other-${login}`, password } },
      body: { email: 'not an e-mail' },
    });
    expect(refused.response.status).toBe(400);
    expect(refused.error?.error.fields?.map(({ field }) => field)).toContain('email');
  });

  it('open banking: an agent enrols a customer with its hash; a typed 401 without one', async () => {
    const agent = await platform.openBanking.createAgent();
    const openBanking = createOpenBankingClient(platform.apiUrl, { agentHash: agent.agentHash });
    const email = `typed-${randomBytes(4).toString('hex')}@example.com`;
    const enrolled = await openBanking.POST('/api/8/signup', {
      body: { name: 'Maria', family: 'Ivanova', email },
    });
    expect(enrolled.response.status, JSON.stringify(enrolled.error)).toBe(201);
    expect(enrolled.data?.userHash).toMatch(/^user_/);

    const anonymous = createOpenBankingClient(platform.apiUrl, {});
    const refused = await anonymous.POST('/api/8/signup', {
      body: { name: 'Maria', family: 'Ivanova', email },
    });
    expect(refused.response.status).toBe(401);
    expect(refused.error?.error.code).toBe('unauthorized');
  });
});
