import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createXs2aClient } from '../../connectors/openbanking/xs2a-client.ts';
import {
  type DirectoryEntry,
  type SandboxBanks,
  startSandboxBanks,
} from '../../sandbox/openbanking/index.ts';

/**
 * docker-compose: the worker reaches the sandbox banks at http://sandbox:4020, a person's browser at
 * http://localhost:4020. The directory (read by the platform) must name the first, the SCA page link
 * (opened by the browser) the second.
 */

const PUBLIC_URL = 'http://banks.example.test:4020';
let banks: SandboxBanks;

beforeAll(async () => {
  banks = await startSandboxBanks({ publicUrl: `${PUBLIC_URL}/` });
});
afterAll(async () => {
  await banks?.stop();
});

describe('sandbox banks behind two hostnames', () => {
  it('the directory names the origin the platform requested it at, not the public URL', async () => {
    const internal = banks.url.replace('127.0.0.1', 'localhost');
    for (const base of [banks.url, internal]) {
      const response = await fetch(`${base}/directory`);
      expect(response.status).toBe(200);
      const { banks: entries } = (await response.json()) as { banks: DirectoryEntry[] };
      expect(entries.map((entry) => entry.xs2aBaseUrl)).toEqual(
        ['bank-a', 'bank-b', 'bank-c', 'bank-d', 'bank-e', 'bank-r', 'bank-o'].map(
          (code) => `${base}/${code}`,
        ),
      );
    }
    expect(banks.publicUrl).toBe(PUBLIC_URL);
    expect(banks.directoryUrl).toBe(`${banks.url}/directory`);
  });

  it('a consent created over the internal URL links the SCA page at the public URL', async () => {
    const bank = createXs2aClient({ baseUrl: `${banks.url}/bank-a`, requestTimeoutMs: 5000 });
    const created = await bank.createConsent(
      {
        access: { allPsd2: 'allAccounts' },
        recurringIndicator: true,
        validUntil: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
        frequencyPerDay: 4,
        combinedServiceIndicator: false,
      },
      {
        redirectUri: 'http://localhost:3000/openbanking/redirect/web/state/s1',
        nokRedirectUri: 'http://localhost:3000/openbanking/redirect/web/state/s1?outcome=nok',
      },
    );
    expect(created.scaRedirectUrl).toBe(`${PUBLIC_URL}/bank-a/sca/${created.consentId}`);
    // The page itself is served at that path (the browser's host differs only in name).
    const page = await fetch(`${banks.url}${new URL(created.scaRedirectUrl).pathname}`);
    expect(page.status).toBe(200);
  });

  it('OAuth2 SCA (Bank O): the authorisation request at the public URL, the token endpoint where the platform called', async () => {
    const internal = banks.url.replace('127.0.0.1', 'localhost');
    const bank = createXs2aClient({ baseUrl: `${internal}/bank-o`, requestTimeoutMs: 5000 });
    const created = await bank.createConsent(
      {
        access: { allPsd2: 'allAccounts' },
        recurringIndicator: true,
        validUntil: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
        frequencyPerDay: 4,
        combinedServiceIndicator: false,
      },
      { redirectUri: 'http://localhost:3000/openbanking/redirect/web/state/s2' },
    );
    expect(created.scaRedirectUrl.startsWith(`${PUBLIC_URL}/bank-o/oauth2/authorize?`)).toBe(true);
    expect(created.oauth?.tokenEndpoint).toBe(`${internal}/bank-o/oauth2/token`);
  });
});
