import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createBankDirectoryActivities } from '../../activities/openbanking/bank-directory.ts';
import { createXs2aClient } from '../../connectors/openbanking/xs2a-client.ts';
import { obConsents } from '../../db/schema/openbanking.ts';
import { bankHashOf } from '../../domain/openbanking/bank-directory.ts';
import { type ConsentRequest, Xs2aErrorType } from '../../domain/openbanking/xs2a.ts';
import { outboundUrlPolicy } from '../../domain/outbound-url.ts';
import { createLogger } from '../../platform/logger.ts';
import { createOutboundFetch } from '../../platform/outbound-http.ts';
import { driveSca } from '../../sandbox/openbanking/sca-driver.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import {
  addAccounts,
  type Customer,
  consentOnceSettled,
  newCustomer,
  startConsent,
} from './consent-helpers.ts';
import { bankOf } from './payment-helpers.ts';

/**
 * Open-banking links the way banks publish them (decision 0082), served by the sandbox banks over
 * loopback: their second host (another port) stands for a bank's other host. The shapes are the
 * Berlin Group's examples: `_links.scaOAuth` naming an authorisation server on another host
 * (`https://www.testbank.com/…`), `_links.download` on another host (with or without its scheme:
 * `www.test-api.com/xs2a/v1/accounts/…/transactions/download/`) and as a `/psd2/v1/…` path of a bank
 * whose base URL is the root of its host. The outbound-URL policy still judges every other host.
 */

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
}, 60_000);
afterAll(async () => {
  await platform?.stop();
});

const banks = () => platform.sandbox.banks;
const control = (code: string, path: string, body: unknown) =>
  fetch(`${banks().url}/${code}/sandbox/${path}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const publishLinks = async (code: string, links: string) =>
  expect((await control(code, 'published-links', { links })).status).toBe(200);
const downloadAbove = async (code: string, above: number | null) =>
  expect((await control(code, 'transactions-download', { above })).status).toBe(200);

afterEach(async () => {
  for (const code of ['bank-a', 'bank-o']) {
    await publishLinks(code, 'own-host');
    await downloadAbove(code, null);
  }
});

/** The customer's accounts and how many transactions the gateway read for each. */
async function transactionCounts(customer: Customer): Promise<number[]> {
  const { body } = await customer.call<{ ibans: { ibanId: string }[] }>('GET', '/api/8/ibans', {
    headers: customer.headers,
  });
  const counts: number[] = [];
  for (const { ibanId } of body.ibans) {
    const { status, body: list } = await customer.call<{ booked: unknown[]; pending: unknown[] }>(
      'GET',
      `/api/8/transactions/${ibanId}`,
      { headers: customer.headers },
    );
    expect(status).toBe(200);
    counts.push(list.booked.length + list.pending.length);
  }
  return counts;
}

describe('an OAuth2 authorisation server on another host (Bank O, scaOAuth)', () => {
  it('is followed where the consent’s scaOAuth link points: metadata and token endpoint there, consent ACTIVE', async () => {
    await publishLinks('bank-o', 'second-host');
    const customer = await newCustomer(platform);
    const started = await startConsent(customer, { bankHash: bankHashOf('bank-o'), frequencyPerDay: 50 });
    const authorize = new URL(started.scaRedirectUrl);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${banks().publicUrl}/bank-o/oauth2/authorize`);
    await driveSca(started.scaRedirectUrl, {
      psuId: 'olga',
      password: 'sandbox-olga',
      decision: 'approve',
      submit: true,
    });
    expect(await consentOnceSettled(customer, started.consentId)).toMatchObject({
      status: 'ACTIVE',
      bankStatus: 'valid',
    });
    // The code was exchanged at the token endpoint the metadata on the other host named.
    const [row] = await platform.db.select().from(obConsents).where(eq(obConsents.id, started.consentId));
    expect(row!.bankTokenEndpoint).toBe(`${banks().secondUrl}/bank-o/oauth2/token`);
    expect(await transactionCounts(customer)).toEqual([20]);
  });
});

describe('a transactions download on another host of the bank (Bank A, _links.download)', () => {
  it.each([
    ['absolute', 'second-host'],
    ['without its scheme, as in the Berlin Group example', 'second-host-without-scheme'],
  ])('%s: followed, the host being in the bank’s directory entry', async (_, links) => {
    await publishLinks('bank-a', links);
    await downloadAbove('bank-a', 0);
    const downloads = bankOf(platform, 'bank-a').transactionDownloads.size;
    const customer = await newCustomer(platform);
    await addAccounts(customer, 'bob', { bankHash: bankHashOf('bank-a') });
    expect(await transactionCounts(customer)).toEqual([25]);
    // The list came as a download link, and was read there.
    expect(bankOf(platform, 'bank-a').transactionDownloads.size).toBeGreaterThan(downloads);
  });
});

describe('a bank at the root of its host publishing /psd2/v1/… links', () => {
  /** The bank as OPENBANKING_BANKS configures it: Sandbox Bank A where the second host serves it. */
  async function configureRootBank(xs2aBaseUrl: string) {
    const synced = await createBankDirectoryActivities({
      db: platform.db,
      config: {
        ...platform.config,
        OPENBANKING_BANKS: [
          {
            code: 'bank-a-root',
            name: 'Sandbox Bank A at the root of its host',
            country: 'BG',
            bic: 'SBXABGSF',
            xs2aBaseUrl,
            linkHosts: [],
            bankFlowType: 'redirect',
            supportsPagedTransactions: false,
          },
        ],
      },
      logger: createLogger('silent'),
    }).syncBankDirectory();
    expect(synced.directoryError).toBeNull();
  }

  it.each([
    ['the host root', ''],
    ['…/psd2/v1', '/psd2/v1'],
  ])(
    'base URL %s: the /psd2/v1/… download resolves against it, without a doubled prefix',
    async (_, path) => {
      await configureRootBank(`${banks().secondUrl}${path}`);
      await publishLinks('bank-a', 'psd2-path');
      await downloadAbove('bank-a', 0);
      const customer = await newCustomer(platform);
      await addAccounts(customer, 'bob', { bankHash: bankHashOf('bank-a-root') });
      expect(await transactionCounts(customer)).toEqual([25]);
    },
  );
});

const allPsd2 = (): ConsentRequest => ({
  access: { allPsd2: 'allAccounts' },
  recurringIndicator: true,
  validUntil: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
  frequencyPerDay: 50,
  combinedServiceIndicator: false,
});

describe('what is still refused', () => {
  /** A consent at Bank A through the connector, approved at the SCA page; the account's resource id. */
  async function approvedConsent(client: ReturnType<typeof createXs2aClient>) {
    const consent = await client.createConsent(allPsd2(), { redirectUri: 'http://127.0.0.1:9/back' });
    await driveSca(consent.scaRedirectUrl!, { psuId: 'bob', password: 'sandbox-bob', decision: 'approve' });
    const [account] = await client.listAccounts(consent.consentId);
    return { consentId: consent.consentId, accountId: account!.resourceId! };
  }

  it('a download on a host the bank’s directory entry does not list', async () => {
    const client = createXs2aClient({ baseUrl: `${banks().url}/bank-a`, requestTimeoutMs: 5_000 });
    const { consentId, accountId } = await approvedConsent(client);
    await publishLinks('bank-a', 'second-host');
    await downloadAbove('bank-a', 0);
    await expect(client.listTransactions(consentId, accountId)).rejects.toMatchObject({
      type: Xs2aErrorType.FormatError,
      message: expect.stringContaining('download is not a report of this account'),
    });
  });

  it('another host the outbound-URL policy refuses (production: no loopback), however the bank announces it', async () => {
    const production = createOutboundFetch(outboundUrlPolicy({ PLATFORM_MODE: 'production' }));
    const client = createXs2aClient({
      baseUrl: `${banks().url}/bank-a`,
      requestTimeoutMs: 5_000,
      linkHosts: [new URL(banks().secondUrl).host],
      linkFetch: production,
    });
    const { consentId, accountId } = await approvedConsent(client);
    await publishLinks('bank-a', 'second-host');
    await downloadAbove('bank-a', 0);
    await expect(client.listTransactions(consentId, accountId)).rejects.toMatchObject({
      type: Xs2aErrorType.ProtocolError,
      message: expect.stringContaining('refused by the outbound-URL policy'),
    });

    await publishLinks('bank-o', 'second-host');
    const bankO = createXs2aClient({
      baseUrl: `${banks().url}/bank-o`,
      requestTimeoutMs: 5_000,
      linkFetch: production,
    });
    await expect(
      bankO.createConsent(allPsd2(), { redirectUri: 'http://127.0.0.1:9/back' }),
    ).rejects.toMatchObject({
      type: Xs2aErrorType.ProtocolError,
      message: expect.stringContaining('refused by the outbound-URL policy'),
    });
  });
});
