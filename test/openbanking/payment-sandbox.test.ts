import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ibanOf,
  SANDBOX_BANKS,
  type SandboxBanks,
  startSandboxBanks,
} from '../../sandbox/openbanking/index.ts';

/**
 * The sandbox banks as a third-party TPP meets them (plain HTTP, no platform): Berlin Group 1.3 shapes of
 * payment initiation and of the two answers the 1.3 schema pins (absolute Location of a new consent, a
 * single transaction not nested), and the ledger as the witness of debits, idempotent per payment.
 */

let banks: SandboxBanks;
const alice = ibanOf(SANDBOX_BANKS[0]!, '00000001');
const request = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
  fetch(`${banks.url}/bank-a${path}`, {
    ...init,
    headers: { 'x-request-id': randomUUID(), 'content-type': 'application/json', ...init.headers },
  });

beforeAll(async () => {
  banks = await startSandboxBanks({ weeklyMaintenance: false });
});
afterAll(async () => {
  await banks?.stop();
});

const payment = (amount = '10.00') => ({
  debtorAccount: { iban: alice },
  instructedAmount: { currency: 'BGN', amount },
  creditorAccount: { iban: 'BG80BNBG96611020345678' },
  creditorName: 'Sofia Water',
});

describe('XS2A 1.3 shapes', () => {
  it('POST /v1/consents answers an absolute Location; one transaction is `transactionsDetails` itself', async () => {
    const created = await request('/v1/consents', {
      method: 'POST',
      headers: { 'tpp-redirect-uri': 'https://tpp.example/cb' },
      body: JSON.stringify({
        access: { allPsd2: 'allAccounts' },
        recurringIndicator: true,
        validUntil: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
        frequencyPerDay: 4,
        combinedServiceIndicator: false,
      }),
    });
    expect(created.status).toBe(201);
    const { consentId } = (await created.json()) as { consentId: string };
    expect(created.headers.get('location')).toBe(`${banks.url}/bank-a/v1/consents/${consentId}`);

    // Approve it as alice, then read one transaction.
    const bank = banks.banks.get('bank-a')!;
    const consent = bank.consents.get(consentId)!;
    bank.login(consent, 'alice', 'sandbox-alice');
    bank.decide(consent, true);
    const account = [...bank.accounts.values()].find((candidate) => candidate.iban === alice)!;
    const list = (await (
      await request(`/v1/accounts/${account.resourceId}/transactions?bookingStatus=booked`, {
        headers: { 'consent-id': consentId, 'psu-ip-address': '192.0.2.1' },
      })
    ).json()) as { transactions: { booked: { transactionId: string }[] } };
    const id = list.transactions.booked[0]!.transactionId;
    const one = (await (
      await request(`/v1/accounts/${account.resourceId}/transactions/${id}`, {
        headers: { 'consent-id': consentId, 'psu-ip-address': '192.0.2.1' },
      })
    ).json()) as { transactionsDetails: Record<string, unknown> };
    expect(one.transactionsDetails.transactionId).toBe(id);
    expect(one.transactionsDetails).not.toHaveProperty('transactionDetails');
  });

  it('lists authorisations; DELETE cancels a payment not yet authorised (204) and refuses one past it (405)', async () => {
    const create = async () => {
      const created = await request('/v1/payments/domestic-credit-transfers', {
        method: 'POST',
        headers: { 'tpp-redirect-preferred': 'true', 'tpp-redirect-uri': 'https://tpp.example/cb' },
        body: JSON.stringify(payment()),
      });
      return ((await created.json()) as { paymentId: string }).paymentId;
    };
    const path = (id: string) => `/v1/payments/domestic-credit-transfers/${id}`;

    const open = await create();
    const listed = (await (await request(`${path(open)}/authorisations`)).json()) as {
      authorisationIds: string[];
    };
    expect(listed.authorisationIds).toHaveLength(1);
    expect((await request(path(open), { method: 'DELETE' })).status).toBe(204);
    const status = (await (await request(`${path(open)}/status`)).json()) as { transactionStatus: string };
    expect(status.transactionStatus).toBe('CANC');

    const executed = await create();
    banks.banks.get('bank-a')!.payments.get(executed)!.transactionStatus = 'ACSC';
    const refused = await request(path(executed), { method: 'DELETE' });
    expect(refused.status).toBe(405);
    expect(((await refused.json()) as { tppMessages: { code: string }[] }).tppMessages[0]!.code).toBe(
      'CANCELLATION_INVALID',
    );
  });

  it('a consent lists its one authorisation and answers its SCA status', async () => {
    const created = await request('/v1/consents', {
      method: 'POST',
      headers: { 'tpp-redirect-uri': 'https://tpp.example/cb' },
      body: JSON.stringify({
        access: { allPsd2: 'allAccounts' },
        recurringIndicator: true,
        validUntil: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
        frequencyPerDay: 4,
        combinedServiceIndicator: false,
      }),
    });
    const { consentId, _links } = (await created.json()) as {
      consentId: string;
      _links: { scaStatus: { href: string } };
    };
    const { authorisationIds } = (await (
      await request(`/v1/consents/${consentId}/authorisations`)
    ).json()) as {
      authorisationIds: string[];
    };
    expect(authorisationIds).toHaveLength(1);
    expect(_links.scaStatus.href).toBe(
      `/bank-a/v1/consents/${consentId}/authorisations/${authorisationIds[0]}`,
    );
    const sca = await request(`/v1/consents/${consentId}/authorisations/${authorisationIds[0]}`);
    expect(await sca.json()).toEqual({ scaStatus: 'received' });
  });

  it('POST /v1/payments/{product}: 201 RCVD with paymentId, links per approach, absolute Location', async () => {
    const redirect = await request('/v1/payments/domestic-credit-transfers', {
      method: 'POST',
      headers: { 'tpp-redirect-preferred': 'true', 'tpp-redirect-uri': 'https://tpp.example/cb' },
      body: JSON.stringify(payment()),
    });
    expect(redirect.status).toBe(201);
    expect(redirect.headers.get('aspsp-sca-approach')).toBe('REDIRECT');
    const body = (await redirect.json()) as {
      transactionStatus: string;
      paymentId: string;
      _links: Record<string, { href: string }>;
    };
    expect(body.transactionStatus).toBe('RCVD');
    expect(redirect.headers.get('location')).toBe(
      `${banks.url}/bank-a/v1/payments/domestic-credit-transfers/${body.paymentId}`,
    );
    expect(Object.keys(body._links).sort()).toEqual(['scaRedirect', 'scaStatus', 'self', 'status']);

    const decoupled = await request('/v1/payments/domestic-credit-transfers', {
      method: 'POST',
      headers: { 'tpp-redirect-preferred': 'false', 'tpp-decoupled-preferred': 'true' },
      body: JSON.stringify(payment()),
    });
    const started = (await decoupled.json()) as { _links: Record<string, unknown> };
    expect(decoupled.headers.get('aspsp-sca-approach')).toBe('DECOUPLED');
    expect(Object.keys(started._links).sort()).toEqual(['self', 'startAuthorisation', 'status']);

    const unknownProduct = await request('/v1/payments/cheques', {
      method: 'POST',
      body: JSON.stringify(payment()),
    });
    expect(unknownProduct.status).toBe(404);
    expect(((await unknownProduct.json()) as { tppMessages: { code: string }[] }).tppMessages[0]!.code).toBe(
      'PRODUCT_UNKNOWN',
    );
    const notOurs = await request('/v1/payments/domestic-credit-transfers', {
      method: 'POST',
      headers: { 'tpp-redirect-preferred': 'false', 'tpp-decoupled-preferred': 'true' },
      body: JSON.stringify({ ...payment(), debtorAccount: { iban: 'BG80BNBG96611020345678' } }),
    });
    expect(notOurs.status).toBe(400);
  });
});

describe('the ledger', () => {
  it('books one debit per payment id, refuses without funds, and follows the per-IBAN behaviour', async () => {
    const bank = banks.banks.get('bank-a')!;
    const { ledger } = bank;
    const before = ledger.balanceOf(alice)!;
    expect(before).toBeGreaterThan(0);
    const first = ledger.debit({ iban: alice, amountMinor: 500, currency: 'BGN', paymentId: 'p-1' });
    const again = ledger.debit({ iban: alice, amountMinor: 500, currency: 'BGN', paymentId: 'p-1' });
    expect(first).toMatchObject({ booked: true, repeated: false });
    expect(again).toMatchObject({ booked: true, repeated: true });
    expect(ledger.balanceOf(alice)).toBe(before - 500);
    expect(ledger.debit({ iban: alice, amountMinor: before, currency: 'BGN', paymentId: 'p-2' })).toEqual({
      booked: false,
      reason: 'insufficient_funds',
    });
    expect(ledger.debit({ iban: alice, amountMinor: 1, currency: 'EUR', paymentId: 'p-3' })).toEqual({
      booked: false,
      reason: 'currency_mismatch',
    });

    const set = (behaviour: unknown) =>
      fetch(`${banks.url}/bank-a/sandbox/ledger/${alice}/behaviour`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(behaviour),
      });
    expect((await set({ kind: 'reject' })).status).toBe(200);
    const rejected = await request('/v1/payments/domestic-credit-transfers', {
      method: 'POST',
      headers: { 'tpp-redirect-preferred': 'false', 'tpp-decoupled-preferred': 'true' },
      body: JSON.stringify(payment()),
    });
    expect(rejected.status).toBe(400);
    expect(((await rejected.json()) as { tppMessages: { code: string }[] }).tppMessages[0]!.code).toBe(
      'PAYMENT_FAILED',
    );
    expect((await set({ kind: 'slow', delayMs: 150 })).status).toBe(200);
    const slow = await request('/v1/payments/domestic-credit-transfers', {
      method: 'POST',
      headers: { 'tpp-redirect-preferred': 'false', 'tpp-decoupled-preferred': 'true' },
      body: JSON.stringify(payment()),
    });
    expect(slow.status).toBe(201);
    expect((await set({ kind: 'bogus' })).status).toBe(400);
    expect((await set({ kind: 'normal' })).status).toBe(200);

    const read = (await (await fetch(`${banks.url}/bank-a/sandbox/ledger/${alice}`)).json()) as {
      balanceMinor: number;
      debits: { paymentId: string }[];
    };
    expect(read.balanceMinor).toBe(before - 500);
    expect(read.debits.map((debit) => debit.paymentId)).toEqual(['p-1']);
  });
});
