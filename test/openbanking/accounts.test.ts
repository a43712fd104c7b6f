import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obConsents } from '../../db/schema/openbanking.ts';
import { driveSca, formsOf } from '../../sandbox/openbanking/sca-driver.ts';
import type { ErrorBody } from '../support/openbanking-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { addAccounts, bankHash, type Customer, consentOnceSettled, newCustomer } from './consent-helpers.ts';

/**
 * Account information from the read model: GET ibans, balance, transactions, one transaction, consents,
 * tokens, account-list, paged transactions and DELETE iban, with their bad inputs and access rules, and
 * the read model still served while the bank refuses (429 ACCESS_EXCEEDED) or is in maintenance.
 */

interface Account {
  ibanId: string;
  iban: string;
  currency: string;
  ownerName: string | null;
  freshness: { refreshedAt: string | null; refreshError: string | null };
  consent?: { consentId: string; status: string; bankStatus: string | null; validUntil: string };
}
interface TransactionList {
  booked: { transactionId: string; bookingDate: string; amount: string }[];
  pending: { transactionId: string; valueDate: string }[];
  freshness: { refreshedAt: string | null; refreshError: string | null };
}

let platform: TestPlatform;
let alice: Customer;
let aliceAccounts: Account[];
let other: Customer;

beforeAll(async () => {
  platform = await startTestPlatform();
  alice = await newCustomer(platform);
  other = await newCustomer(platform, 'Other agent');
  await addAccounts(alice, 'alice', { bankHash: bankHash('bank-a') });
  const { body } = await alice.call<{ ibans: Account[] }>('GET', '/api/8/ibans', { headers: alice.headers });
  aliceAccounts = body.ibans;
}, 60_000);
afterAll(async () => {
  await platform?.stop();
});

const current = () => aliceAccounts.find((account) => account.currency === 'BGN')!;

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

describe('the bank refuses or is away: the read model is still served', () => {
  it('429 ACCESS_EXCEEDED on a refresh: reads answer the last data, the consent is marked', async () => {
    const carol = await newCustomer(platform);
    await addAccounts(carol, 'carol', { bankHash: bankHash('bank-b'), frequencyPerDay: 1 });
    const { body } = await carol.call<{ ibans: Account[] }>('GET', '/api/8/ibans', {
      headers: carol.headers,
    });
    const account = body.ibans[0]!;
    const before = await carol.call<TransactionList>('GET', `/api/8/transactions/${account.ibanId}`, {
      headers: carol.headers,
    });
    expect(before.body.booked.length + before.body.pending.length).toBe(120);

    const refresh = await carol.call('POST', `/api/8/cache/initial/${account.ibanId}`, {
      headers: { 'x-agent-hash': carol.agentHash },
    });
    expect(refresh.status).toBe(202);
    const refused = await eventually(async () => {
      const { body: list } = await carol.call<{ ibans: Account[] }>('GET', '/api/8/ibans', {
        headers: { ...carol.headers, 'consent-details': 'true' },
      });
      const seen = list.ibans[0]!;
      return seen.freshness.refreshError === 'access_exceeded' ? seen : undefined;
    });
    expect(refused.consent).toMatchObject({ status: 'ACTIVE', accessExceededAt: expect.any(String) });
    const after = await carol.call<TransactionList>('GET', `/api/8/transactions/${account.ibanId}`, {
      headers: carol.headers,
    });
    expect(after.status).toBe(200);
    expect(after.body.booked.length + after.body.pending.length).toBe(120);
    expect(after.body.freshness.refreshError).toBe('access_exceeded');

    // Paged transactions follow the bank's own paging, so they meet the bank's limit too.
    const paged = await carol.call<ErrorBody>('GET', `/api/8/paged-transactions/${account.ibanId}`, {
      headers: carol.headers,
    });
    expect(paged.status).toBe(429);
    expect(paged.body.error.code).toBe('bank_access_exceeded');
  });

  it('a consent the bank has expired: the refresh marks it EXPIRED, reads answer the last data', async () => {
    const dan = await newCustomer(platform);
    const { started } = await addAccounts(dan, 'dan', { bankHash: bankHash('bank-c') });
    const [consent] = await platform.db.select().from(obConsents).where(eq(obConsents.id, started.consentId));
    const expire = await fetch(
      `${platform.sandbox.banks.url}/bank-c/sandbox/consents/${consent!.bankConsentId}/expire`,
      {
        method: 'POST',
      },
    );
    expect(expire.status).toBe(204);
    const { body } = await dan.call<{ ibans: Account[] }>('GET', '/api/8/ibans', { headers: dan.headers });
    const { ibanId } = body.ibans[0]!;
    await dan.call('POST', `/api/8/cache/initial/${ibanId}`, { headers: { 'x-agent-hash': dan.agentHash } });
    const token = await consentOnceSettled(
      dan,
      started.consentId,
      (candidate) => candidate.status === 'EXPIRED',
    );
    expect(token.bankStatus).toBe('expired');
    const transactions = await dan.call<TransactionList>('GET', `/api/8/transactions/${ibanId}`, {
      headers: dan.headers,
    });
    expect(transactions.status).toBe(200);
    expect(transactions.body.booked.length + transactions.body.pending.length).toBe(30);
    expect(transactions.body.freshness.refreshError).toBe('consent_expired');
  });

  it('a bank in maintenance: the refresh records bank_unavailable, reads answer the last data', async () => {
    const maintenance = `${platform.sandbox.banks.url}/bank-a/sandbox/maintenance`;
    const now = Date.now();
    await fetch(maintenance, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        notices: [
          {
            startsAt: new Date(now - 60_000).toISOString(),
            endsAt: new Date(now + 3_600_000).toISOString(),
            message: 'Test maintenance',
          },
        ],
      }),
    });
    try {
      const { ibanId } = current();
      const refresh = await alice.call('POST', `/api/8/cache/initial/${ibanId}`, {
        headers: { 'x-agent-hash': alice.agentHash },
      });
      expect(refresh.status).toBe(202);
      await eventually(async () => {
        const { body } = await alice.call<{ freshness: Account['freshness'] }>(
          'GET',
          `/api/8/balance/${ibanId}`,
          {
            headers: alice.headers,
          },
        );
        return body.freshness.refreshError === 'bank_unavailable' ? true : undefined;
      }, 30_000);
      const balance = await alice.call<{ balances: unknown[] }>('GET', `/api/8/balance/${ibanId}`, {
        headers: alice.headers,
      });
      expect(balance.status).toBe(200);
      expect(balance.body.balances).toHaveLength(3);

      // A new consent needs the bank: 503 bank_unavailable, and the consent ends FAILED.
      const refused = await alice.call<ErrorBody>('POST', '/api/8/consent', {
        headers: alice.headers,
        body: { bankHash: bankHash('bank-a') },
      });
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('bank_unavailable');
      const { body } = await alice.call<{ tokens: { status: string }[] }>('GET', '/api/8/tokens', {
        headers: alice.headers,
      });
      expect(body.tokens[0]).toMatchObject({ status: 'FAILED' });
    } finally {
      await fetch(maintenance, { method: 'DELETE' });
    }
  });
});

describe('paged transactions, account list, deleting accounts', () => {
  it('paged transactions follow the bank’s pages on a paging bank; a bank that does not page is 409', async () => {
    const carol = await newCustomer(platform);
    await addAccounts(carol, 'carol', { bankHash: bankHash('bank-b') });
    const { body } = await carol.call<{ ibans: Account[] }>('GET', '/api/8/ibans', {
      headers: carol.headers,
    });
    const ibanId = body.ibans[0]!.ibanId;
    const seen = new Set<string>();
    let next: string | null = null;
    let pages = 0;
    do {
      const query: string = next ? `?nextPageUrl=${encodeURIComponent(next)}` : '';
      const page = await carol.call<TransactionList & { nextPageUrl: string | null }>(
        'GET',
        `/api/8/paged-transactions/${ibanId}${query}`,
        { headers: carol.headers },
      );
      expect(page.status).toBe(200);
      for (const transaction of [...page.body.booked, ...page.body.pending])
        seen.add(transaction.transactionId);
      next = page.body.nextPageUrl;
      pages += 1;
    } while (next && pages < 10);
    expect(pages).toBe(3);
    expect(seen.size).toBe(120);

    const forged = await carol.call<ErrorBody>(
      'GET',
      `/api/8/paged-transactions/${ibanId}?nextPageUrl=${Buffer.from('https://evil.example/x').toString('base64url')}`,
      { headers: carol.headers },
    );
    expect(forged.status).toBe(400);
    expect(forged.body.error.fields?.[0]?.field).toBe('nextPageUrl');

    const notPaging = await alice.call<ErrorBody>('GET', `/api/8/paged-transactions/${current().ibanId}`, {
      headers: alice.headers,
    });
    expect(notPaging.status).toBe(409);
    expect(notPaging.body.error.code).toBe('paged_transactions_not_supported');
    expect(
      (await alice.call('GET', `/api/7/paged-transactions/${current().ibanId}`, { headers: alice.headers }))
        .status,
    ).toBe(404);
  });

  it('nextPageUrl is an opaque cursor: never the bank’s address, bound to its owner, expiring', async () => {
    const owner = await newCustomer(platform);
    await addAccounts(owner, 'carol', { bankHash: bankHash('bank-b') });
    const stranger = await newCustomer(platform, 'Another agent');
    await addAccounts(stranger, 'carol', { bankHash: bankHash('bank-b') });
    const ibanOf = async (customer: Customer) =>
      (await customer.call<{ ibans: Account[] }>('GET', '/api/8/ibans', { headers: customer.headers })).body
        .ibans[0]!.ibanId;
    const ownerIban = await ibanOf(owner);
    const strangerIban = await ibanOf(stranger);
    type Page = TransactionList & { nextPageUrl: string | null };
    const page = (customer: Customer, ibanId: string, cursor?: string) =>
      customer.call<Page & Partial<ErrorBody>>(
        'GET',
        `/api/8/paged-transactions/${ibanId}${cursor ? `?nextPageUrl=${encodeURIComponent(cursor)}` : ''}`,
        { headers: customer.headers },
      );

    const first = await page(owner, ownerIban);
    expect(first.status).toBe(200);
    const cursor = first.body.nextPageUrl!;
    const banksUrl = new URL(platform.sandbox.banks.url);
    for (const text of [cursor, Buffer.from(cursor, 'base64url').toString('latin1')]) {
      expect(text).not.toContain('http');
      expect(text).not.toContain(banksUrl.host);
      expect(text).not.toContain('/transactions');
    }
    // Another user's cursor, even on an account of the same bank user, is not found; so is it on
    // another account; the owner's own works.
    const strangers = await page(stranger, strangerIban, cursor);
    expect(strangers.status).toBe(404);
    expect(strangers.body.error?.code).toBe('not_found');
    const second = await page(owner, ownerIban, cursor);
    expect(second.status).toBe(200);
    expect(second.body.booked.length + second.body.pending.length).toBeGreaterThan(0);
    // A cursor expires (OPENBANKING_PAGE_CURSOR_TTL): 400 naming nextPageUrl, start again.
    const later = second.body.nextPageUrl!;
    await platform.db.execute(sql`update ob_page_cursors set expires_at = now() - interval '1 second'`);
    const expired = await page(owner, ownerIban, later);
    expect(expired.status).toBe(400);
    expect(expired.body.error?.fields?.[0]?.field).toBe('nextPageUrl');
  });

  it('a one-shot account-list consent lists IBANs and owner names, and is ended at the bank at once', async () => {
    const dan = await newCustomer(platform);
    const { started } = await addAccounts(dan, 'dan', { bankHash: bankHash('bank-c'), kind: 'account-list' });
    const { status, body } = await dan.call<{ accounts: { iban: string; ownerName: string }[] }>(
      'GET',
      '/api/8/account-list',
      { headers: dan.headers },
    );
    expect(status).toBe(200);
    expect(body.accounts).toEqual([
      expect.objectContaining({ iban: expect.stringMatching(/^RO/), ownerName: 'Dan Popescu' }),
    ]);
    const token = await consentOnceSettled(dan, started.consentId);
    expect(token).toMatchObject({ kind: 'account-list', status: 'ACTIVE', bankStatus: 'terminatedByTpp' });
    // It adds no accounts to GET ibans.
    const ibans = await dan.call<{ ibans: unknown[] }>('GET', '/api/8/ibans', { headers: dan.headers });
    expect(ibans.body.ibans).toEqual([]);
  });

  it('the AIS e-mail link: the page starts nothing; its button starts the consent at the bank', async () => {
    const erin = await newCustomer(platform);
    const email = await erin.call<{ link: string }>('POST', '/api/8/agent/ais/email', {
      headers: erin.headers,
      body: { bankHash: bankHash('bank-c') },
    });
    expect(email.status).toBe(202);
    const shown = await fetch(email.body.link);
    expect(shown.status).toBe(200);
    const form = formsOf(await shown.text())[0]!;
    const before = await erin.call<{ tokens: unknown[] }>('GET', '/api/8/tokens', { headers: erin.headers });
    expect(before.body.tokens).toEqual([]);

    const started = await fetch(new URL(form.action, email.body.link), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form.fields).toString(),
      redirect: 'manual',
    });
    expect(started.status).toBe(303);
    const scaRedirectUrl = started.headers.get('location')!;
    expect(scaRedirectUrl).toContain('/bank-c/sca/');
    await driveSca(scaRedirectUrl, {
      psuId: 'dan',
      password: 'sandbox-dan',
      decision: 'approve',
      submit: true,
    });
    const { body } = await erin.call<{ tokens: { consentId: string }[] }>('GET', '/api/8/tokens', {
      headers: erin.headers,
    });
    await consentOnceSettled(erin, body.tokens[0]!.consentId, (token) => token.status === 'ACTIVE');

    const forged = await fetch(email.body.link.replace(/token=.*/, 'token=eyJhbGciOiJub25lIn0.e30.'));
    expect(forged.status).toBe(401);
  });

  it('DELETE iban removes the account; the last one of a consent ends the consent at the bank', async () => {
    const bob = await newCustomer(platform);
    const { started } = await addAccounts(bob, 'alice', { bankHash: bankHash('bank-a') });
    const { body } = await bob.call<{ ibans: Account[] }>('GET', '/api/8/ibans', { headers: bob.headers });
    const [first, second] = body.ibans;

    const kept = await bob.call('DELETE', `/api/6/iban/${first!.ibanId}`, { headers: bob.headers });
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ status: 'deleted', consentTermination: 'kept' });
    expect((await bob.call('GET', `/api/8/balance/${first!.ibanId}`, { headers: bob.headers })).status).toBe(
      404,
    );
    expect((await bob.call('DELETE', `/api/6/iban/${first!.ibanId}`, { headers: bob.headers })).status).toBe(
      404,
    );

    const ended = await bob.call('DELETE', `/api/8/iban/${second!.ibanId}`, { headers: bob.headers });
    expect(ended.body).toMatchObject({ consentTermination: 'requested' });
    const token = await consentOnceSettled(
      bob,
      started.consentId,
      (candidate) => candidate.status === 'TERMINATED',
    );
    expect(token).toMatchObject({ bankStatus: 'terminatedByTpp', accounts: 0 });
    const list = await bob.call<{ ibans: unknown[] }>('GET', '/api/8/ibans', { headers: bob.headers });
    expect(list.body.ibans).toEqual([]);
  });
});
