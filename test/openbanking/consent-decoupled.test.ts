import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankHashOf } from '../../domain/openbanking/bank-directory.ts';
import { type SandboxBanks, startSandboxBanks } from '../../sandbox/openbanking/index.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { consentOnceSettled, newCustomer } from './consent-helpers.ts';

/**
 * Consents at a bank whose SCA flow is decoupled: the user names their id at the bank (psuId), the bank
 * asks them in its app, and the gateway reads the consent at the bank until it moves; no browser, no
 * callback. The banks here are configured (OPENBANKING_BANKS) on a sandbox bank server of this file's
 * own: `app-bank` (decoupled) and `pin-bank` (embedded), both served by its Bank C.
 */

let platform: TestPlatform;
let banks: SandboxBanks;
const appBank = bankHashOf('app-bank');
const pinBank = bankHashOf('pin-bank');

beforeAll(async () => {
  banks = await startSandboxBanks({ weeklyMaintenance: false });
  const configured = (code: string, bankFlowType: string) => ({
    code,
    name: `Sandbox ${code}`,
    country: 'RO',
    bic: 'SBXCROBU',
    xs2aBaseUrl: `${banks.url}/bank-c`,
    bankFlowType,
    supportsPagedTransactions: false,
  });
  platform = await startTestPlatform({
    env: {
      OPENBANKING_DECOUPLED_POLL_INTERVAL: '200ms',
      OPENBANKING_BANKS: JSON.stringify([
        configured('app-bank', 'decoupled'),
        configured('pin-bank', 'embedded'),
      ]),
    },
  });
});
afterAll(async () => {
  await platform?.stop();
  await banks?.stop();
});

const lastConsent = () => [...banks.banks.get('bank-c')!.consents.values()].at(-1)!;
const answerInApp = (bankConsentId: string, decision: 'approve' | 'deny') =>
  fetch(`${banks.url}/bank-c/sandbox/consents/${bankConsentId}/decoupled/${decision}`, { method: 'POST' });

describe('decoupled consents', () => {
  it('need the user’s id at the bank; approved in the bank’s app: ACTIVE with the accounts', async () => {
    const customer = await newCustomer(platform);
    const missing = await customer.call('POST', '/api/8/consent', {
      headers: customer.headers,
      body: { bankHash: appBank },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error?.fields?.[0]?.field).toBe('psuId');

    const started = await customer.call<{
      consentId: string;
      scaRedirectUrl: string | null;
      psuMessage: string;
    }>('POST', '/api/8/consent', { headers: customer.headers, body: { bankHash: appBank, psuId: 'dan' } });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ scaRedirectUrl: null, scaMethod: 'DECOUPLED' });
    expect(started.body.psuMessage).toContain('app');
    expect((await answerInApp(lastConsent().consentId, 'approve')).status).toBe(204);
    expect(await consentOnceSettled(customer, started.body.consentId)).toMatchObject({
      status: 'ACTIVE',
      accounts: 1,
    });
  });

  it('denied in the app: REJECTED; an unknown user id is refused by the bank (502)', async () => {
    const customer = await newCustomer(platform);
    const started = await customer.call<{ consentId: string }>('POST', '/api/8/consent', {
      headers: customer.headers,
      body: { bankHash: appBank, psuId: 'dan' },
    });
    expect(started.status).toBe(201);
    expect((await answerInApp(lastConsent().consentId, 'deny')).status).toBe(204);
    expect(await consentOnceSettled(customer, started.body.consentId)).toMatchObject({ status: 'REJECTED' });

    const unknown = await customer.call('POST', '/api/8/consent', {
      headers: customer.headers,
      body: { bankHash: appBank, psuId: 'nobody' },
    });
    expect(unknown.status).toBe(502);
    expect(unknown.body.error?.code).toBe('bank_refused');
  });

  it('a bank configured embedded whose XS2A interface offers no embedded consent: 502 bank_refused', async () => {
    // Embedded consents themselves: sca-approaches.test.ts (Sandbox Bank E, decision 0061).
    const customer = await newCustomer(platform);
    const refused = await customer.call('POST', '/api/8/consent', {
      headers: customer.headers,
      body: { bankHash: pinBank },
    });
    expect(refused.status).toBe(502);
    expect(refused.body.error?.code).toBe('bank_refused');
  });
});
