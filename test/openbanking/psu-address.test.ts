import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obConsents } from '../../db/schema/openbanking.ts';
import { clientAddress, parseTrustedProxies } from '../../domain/client-address.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { bankHash, type Customer, newCustomer, startConsent } from './consent-helpers.ts';

/**
 * `PSU-IP-Address` sent to the bank: the integrator's `x-psu-ip-address` header (validated), else
 * the client of X-Forwarded-For when the caller is a TRUSTED_PROXIES proxy, else the caller's socket
 * address. The sandbox bank records what it received.
 */
describe('clientAddress (pure)', () => {
  const trusted = parseTrustedProxies('127.0.0.1, 10.0.0.0/8, ::1/128');
  it('takes X-Forwarded-For only from a trusted proxy, the rightmost address that is not one', () => {
    expect(clientAddress({ socket: '127.0.0.1', forwardedFor: '203.0.113.7', trusted })).toBe('203.0.113.7');
    // The client may put anything first; only what the trusted proxies appended counts.
    expect(
      clientAddress({ socket: '::ffff:10.1.2.3', forwardedFor: '1.1.1.1, 203.0.113.7, 10.0.0.5', trusted }),
    ).toBe('203.0.113.7');
    // An untrusted caller's X-Forwarded-For is ignored.
    expect(clientAddress({ socket: '198.51.100.4', forwardedFor: '203.0.113.7', trusted })).toBe(
      '198.51.100.4',
    );
    expect(clientAddress({ socket: '127.0.0.1', forwardedFor: '203.0.113.7', trusted: [] })).toBe(
      '127.0.0.1',
    );
    // Garbage in the header: the last trusted hop is the client.
    expect(clientAddress({ socket: '127.0.0.1', forwardedFor: 'not-an-ip', trusted })).toBe('127.0.0.1');
    expect(clientAddress({ socket: '127.0.0.1', forwardedFor: undefined, trusted })).toBe('127.0.0.1');
  });
  it('refuses a TRUSTED_PROXIES entry that is not an address or CIDR range', () => {
    expect(() => parseTrustedProxies('10.0.0.0/33')).toThrow(/10\.0\.0\.0\/33/);
    expect(() => parseTrustedProxies('proxy.example')).toThrow(/proxy\.example/);
    expect(parseTrustedProxies('')).toEqual([]);
  });
});

let platform: TestPlatform;
let customer: Customer;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { TRUSTED_PROXIES: '127.0.0.1/32,::1/128' } });
  customer = await newCustomer(platform);
});
afterAll(async () => {
  await platform?.stop();
});

/** Starts a consent at Bank A with these headers; resolves with the PSU-IP-Address the bank received. */
async function psuAddressSeen(headers: Record<string, string>) {
  const started = await startConsent(
    { ...customer, headers: { ...customer.headers, ...headers } } as Customer,
    {
      bankHash: bankHash('bank-a'),
    },
  );
  const [row] = await platform.db.select().from(obConsents).where(eq(obConsents.id, started.consentId));
  return platform.sandbox.banks.banks.get('bank-a')?.consents.get(row?.bankConsentId ?? '')?.psuIpAddress;
}

describe('PSU-IP-Address sent to the bank', () => {
  it('is the integrator’s x-psu-ip-address, else the trusted proxy’s client, else the caller', async () => {
    expect(await psuAddressSeen({ 'x-psu-ip-address': '198.51.100.23' })).toBe('198.51.100.23');
    expect(await psuAddressSeen({ 'x-psu-ip-address': '2001:db8::5' })).toBe('2001:db8::5');
    // The test calls over loopback, a trusted proxy here: its X-Forwarded-For client counts.
    expect(await psuAddressSeen({ 'x-forwarded-for': '6.6.6.6, 203.0.113.40' })).toBe('203.0.113.40');
    expect(await psuAddressSeen({})).toBe('127.0.0.1');
  });

  it('refuses an x-psu-ip-address that is not an IP address, naming it', async () => {
    const refused = await customer.call<{ error: { code: string; fields?: { field: string }[] } }>(
      'POST',
      '/api/8/consent',
      {
        headers: { ...customer.headers, 'x-psu-ip-address': '1.2.3.4; drop' },
        body: { bankHash: bankHash('bank-a') },
      },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.fields?.map((field) => field.field)).toEqual(['x-psu-ip-address']);
  });
});
