import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody } from '../support/openbanking-client.ts';
import type { TestPlatform } from '../support/platform.ts';
import {
  type Account,
  bgnAccountOf,
  startAccountsPlatform,
  type TransactionList,
} from './accounts-support.ts';
import { bankHash, type Customer } from './consent-helpers.ts';

/**
 * Account information from the read model: GET ibans, balance, transactions, one transaction, consents,
 * tokens, in their versions, with their bad inputs and access rules. The bank refusing, paging, the
 * account list and DELETE iban: accounts-bank.test.ts.
 */

let platform: TestPlatform;
let alice: Customer;
let aliceAccounts: Account[];
let other: Customer;

beforeAll(async () => {
  ({ platform, alice, aliceAccounts, other } = await startAccountsPlatform());
}, 60_000);
afterAll(async () => {
  await platform?.stop();
});

const current = () => bgnAccountOf(aliceAccounts);

describe('reads from the read model', () => {
  it('GET ibans lists the accounts the consent added, in every version; consent-details adds the consent', async () => {
    expect(aliceAccounts).toHaveLength(2);
    expect(aliceAccounts.map((account) => account.currency).sort()).toEqual(['BGN', 'EUR']);
    expect(current()).toMatchObject({
      ibanId: expect.stringMatching(/^iba_[0-9a-f]{24}$/),
      ownerName: 'Alice Ivanova',
      freshness: { refreshedAt: expect.any(String), refreshError: null },
    });
    expect(current().consent).toBeUndefined();
    for (const version of [6, 7, 8]) {
      const { status, body } = await alice.call<{ ibans: Account[] }>('GET', `/api/${version}/ibans`, {
        headers: { ...alice.headers, 'consent-details': 'true' },
      });
      expect(status).toBe(200);
      expect(body.ibans[0]!.consent).toMatchObject({ status: 'ACTIVE', bankStatus: 'valid' });
    }
    const v9 = await alice.call('GET', '/api/9/ibans', { headers: alice.headers });
    expect(v9.status).toBe(404);
  });

  it('GET balance, transactions (with dates) and one transaction', async () => {
    const { ibanId } = current();
    const balance = await alice.call<{ balances: { balanceType: string; amount: string }[] }>(
      'GET',
      `/api/7/balance/${ibanId}`,
      { headers: alice.headers },
    );
    expect(balance.status).toBe(200);
    expect(balance.body.balances.map((entry) => entry.balanceType)).toEqual([
      'closingBooked',
      'expected',
      'interimAvailable',
    ]);

    const all = await alice.call<TransactionList>('GET', `/api/6/transactions/${ibanId}`, {
      headers: alice.headers,
    });
    expect(all.status).toBe(200);
    expect(all.body.booked).toHaveLength(38);
    expect(all.body.pending).toHaveLength(2);

    const dates = all.body.booked.map((transaction) => transaction.bookingDate);
    const dateTo = dates[5]!;
    const dateFrom = dates[20]!;
    const ranged = await alice.call<TransactionList>(
      'GET',
      `/api/8/transactions/${ibanId}?dateFrom=${dateFrom}&dateTo=${dateTo}`,
      { headers: alice.headers },
    );
    expect(ranged.status).toBe(200);
    expect(ranged.body.booked.length).toBeGreaterThan(0);
    expect(ranged.body.booked.length).toBeLessThan(38);
    for (const transaction of ranged.body.booked) {
      expect(transaction.bookingDate >= dateFrom && transaction.bookingDate <= dateTo).toBe(true);
    }

    const one = all.body.booked[3]!;
    const single = await alice.call('GET', `/api/8/transactions/${ibanId}/${one.transactionId}`, {
      headers: alice.headers,
    });
    expect(single.status).toBe(200);
    expect(single.body).toMatchObject({ ibanId, transactionId: one.transactionId, amount: one.amount });
  });

  it('GET consents/{ibanId}, GET tokens (with country) and the agent’s GET consent/iban/{iban}', async () => {
    const { ibanId, iban } = current();
    const consents = await alice.call<{ consents: { current: boolean; status: string }[] }>(
      'GET',
      `/api/8/consents/${ibanId}`,
      { headers: alice.headers },
    );
    expect(consents.status).toBe(200);
    expect(consents.body.consents).toEqual([expect.objectContaining({ current: true, status: 'ACTIVE' })]);

    const bg = await alice.call<{ tokens: { accounts: number; status: string }[] }>(
      'GET',
      '/api/8/tokens?country=bg',
      {
        headers: alice.headers,
      },
    );
    expect(bg.body.tokens).toEqual([expect.objectContaining({ accounts: 2, status: 'ACTIVE' })]);
    const ro = await alice.call<{ tokens: unknown[] }>('GET', '/api/8/tokens?country=RO', {
      headers: alice.headers,
    });
    expect(ro.body.tokens).toEqual([]);

    const byIban = await alice.call('GET', `/api/8/consent/iban/${iban}`, {
      headers: { 'x-agent-hash': alice.agentHash },
    });
    expect(byIban.status).toBe(200);
    expect(byIban.body).toMatchObject({ ibanId, status: 'valid', userId: alice.user.userId });
    const otherAgent = await other.call('GET', `/api/8/consent/iban/${iban}`, {
      headers: { 'x-agent-hash': other.agentHash },
    });
    expect(otherAgent.status).toBe(404);
  });
});

describe('versions', () => {
  // The spec's Versions column for account information, transcribed by hand.
  const SPEC: [string, string, readonly number[]][] = [
    ['GET', '/balance/iba_000000000000000000000000', [6, 7, 8]],
    ['POST', '/consent', [6, 7, 8]],
    ['GET', '/consents/iba_000000000000000000000000', [6, 7, 8]],
    ['DELETE', '/iban/iba_000000000000000000000000', [6, 7, 8]],
    ['GET', '/ibans', [6, 7, 8]],
    ['GET', '/transactions/iba_000000000000000000000000', [6, 7, 8]],
    ['GET', '/transactions/iba_000000000000000000000000/tx-1', [6, 7, 8]],
    ['GET', '/paged-transactions/iba_000000000000000000000000', [8]],
    ['GET', '/account-list', [8]],
    ['GET', '/tokens', [8]],
  ];
  it.each(SPEC)('%s %s exists in %j only', async (method, path, versions) => {
    for (const version of [6, 7, 8, 9]) {
      const { status, body } = await alice.call<ErrorBody>(
        method,
        `/api/${version}${path}`,
        method === 'POST' ? { body: {} } : {},
      );
      // Without credentials: 401 where the operation exists, 404 (JSON) where it does not.
      expect(status, `${method} /api/${version}${path}`).toBe(versions.includes(version) ? 401 : 404);
      expect(body.error.code).toBe(versions.includes(version) ? 'unauthorized' : 'route_not_found');
    }
  });

  it('the bank callback has no version: an unknown state is an HTML 404 page', async () => {
    const response = await fetch(`${platform.openBanking.url}/redirect/web/state/${'x'.repeat(43)}`, {
      method: 'POST',
    });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(
      (await fetch(`${platform.openBanking.url}/api/8/redirect/web/state/x`, { method: 'POST' })).status,
    ).toBe(404);
  });
});

describe('reference', () => {
  it('the OpenAPI document lists the account-information operations in their versions only', async () => {
    const { status, body } = await alice.call<{ paths: Record<string, unknown> }>('GET', '/openapi.json');
    expect(status).toBe(200);
    const paths = Object.keys(body.paths);
    for (const path of [
      '/api/6/ibans',
      '/api/7/balance/{ibanId}',
      '/api/8/transactions/{ibanId}/{transactionId}',
      '/api/8/paged-transactions/{ibanId}',
      '/api/8/account-list',
      '/api/8/tokens',
      '/api/6/consent',
      '/api/8/iban/{ibanId}',
      '/redirect/{app}/state/{state}',
    ])
      expect(paths).toContain(path);
    for (const path of ['/api/9/ibans', '/api/7/account-list', '/api/6/tokens', '/api/9/consent'])
      expect(paths).not.toContain(path);
  });
});

describe('bad input', () => {
  const cases: [string, string, Record<string, string>, number, string | undefined][] = [
    ['malformed ibanId', '/api/8/balance/DE89370400440532013000', {}, 400, 'ibanId'],
    ['malformed ibanId (transactions)', '/api/8/transactions/iba_xyz', {}, 400, 'ibanId'],
    ['not a date', '/api/8/transactions/{ibanId}?dateFrom=2026-13-01', {}, 400, 'dateFrom'],
    ['not a calendar date', '/api/8/transactions/{ibanId}?dateTo=2026-02-30', {}, 400, 'dateTo'],
    [
      'dateFrom after dateTo',
      '/api/8/transactions/{ibanId}?dateFrom=2026-05-02&dateTo=2026-05-01',
      {},
      400,
      'dateFrom',
    ],
    [
      'consent-details neither true nor false',
      '/api/8/ibans',
      { 'consent-details': 'maybe' },
      400,
      'consent-details',
    ],
    ['unknown transaction', '/api/8/transactions/{ibanId}/tx-unknown', {}, 404, undefined],
    ['unknown but well-formed ibanId', `/api/8/balance/iba_${'0'.repeat(24)}`, {}, 404, undefined],
    ['bad country', '/api/8/tokens?country=XX', {}, 400, 'country'],
  ];
  it.each(cases)('%s → %i', async (_name, path, headers, status, field) => {
    const { status: answered, body } = await alice.call<ErrorBody>(
      'GET',
      path.replace('{ibanId}', current().ibanId),
      { headers: { ...alice.headers, ...headers } },
    );
    expect(answered).toBe(status);
    if (field) {
      expect(body.error.code).toBe('validation_failed');
      expect(body.error.fields?.map((entry) => entry.field)).toContain(field);
    } else {
      expect(body.error.code).toBe('not_found');
    }
  });

  it('POST consent: unknown bank 404, unknown hook and past validUntil 400, nothing stored', async () => {
    const post = (body: Record<string, unknown>) =>
      alice.call<ErrorBody>('POST', '/api/8/consent', { headers: alice.headers, body });
    expect((await post({ bankHash: 'f'.repeat(24) })).status).toBe(404);
    const hook = await post({ bankHash: bankHash('bank-a'), hookHash: 'hook_nope' });
    expect(hook.status).toBe(400);
    expect(hook.body.error.fields?.[0]?.field).toBe('hookHash');
    const past = await post({ bankHash: bankHash('bank-a'), validUntil: '2020-01-01' });
    expect(past.status).toBe(400);
    expect(past.body.error.fields?.[0]?.field).toBe('validUntil');
    const oneOff = await post({ bankHash: bankHash('bank-a'), recurring: false, frequencyPerDay: 4 });
    expect(oneOff.body.error.fields?.[0]?.field).toBe('frequencyPerDay');
    const { body } = await alice.call<{ tokens: unknown[] }>('GET', '/api/8/tokens', {
      headers: alice.headers,
    });
    expect(body.tokens).toHaveLength(1);
  });
});

describe('access', () => {
  const paths = () => {
    const { ibanId } = current();
    return [
      ['GET', '/api/8/ibans'],
      ['GET', `/api/8/balance/${ibanId}`],
      ['GET', `/api/8/transactions/${ibanId}`],
      ['GET', `/api/8/transactions/${ibanId}/tx-1`],
      ['GET', `/api/8/paged-transactions/${ibanId}`],
      ['GET', `/api/8/consents/${ibanId}`],
      ['GET', '/api/8/account-list'],
      ['GET', '/api/8/tokens'],
      ['DELETE', `/api/8/iban/${ibanId}`],
      ['POST', '/api/8/consent'],
    ] as const;
  };

  it('without x-user-hash every operation is 401', async () => {
    for (const [method, path] of paths()) {
      const { status, body } = await alice.call<ErrorBody>(
        method,
        path,
        method === 'POST' ? { body: {} } : {},
      );
      expect(status, `${method} ${path}`).toBe(401);
      expect(body.error.code).toBe('unauthorized');
    }
  });

  it('another user’s ibanId is 404, never data; a wrong agent on v8 transactions is 404', async () => {
    for (const [method, path] of paths().filter(([, path]) => path.includes('iba_'))) {
      const { status } = await other.call(method, path, { headers: other.headers });
      expect(status, `${method} ${path}`).toBe(404);
    }
    const wrongAgent = await alice.call('GET', `/api/8/transactions/${current().ibanId}`, {
      headers: { ...alice.headers, 'x-agent-hash': other.agentHash },
    });
    expect(wrongAgent.status).toBe(404);
    const ownAgent = await alice.call('GET', `/api/8/transactions/${current().ibanId}`, {
      headers: { ...alice.headers, 'x-agent-hash': alice.agentHash },
    });
    expect(ownAgent.status).toBe(200);
    const unknownAgent = await alice.call('GET', `/api/8/transactions/${current().ibanId}`, {
      headers: { ...alice.headers, 'x-agent-hash': 'agent_nope' },
    });
    expect(unknownAgent.status).toBe(401);
    // Cache initialisation by another agent: 404.
    const refresh = await other.call('POST', `/api/8/cache/initial/${current().ibanId}`, {
      headers: { 'x-agent-hash': other.agentHash },
    });
    expect(refresh.status).toBe(404);
  });
});
