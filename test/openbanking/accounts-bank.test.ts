import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obConsents } from '../../db/schema/openbanking.ts';
import { driveSca, formsOf } from '../../sandbox/openbanking/sca-driver.ts';
import type { ErrorBody } from '../support/openbanking-client.ts';
import { eventually, type TestPlatform } from '../support/platform.ts';
import {
  type Account,
  bgnAccountOf,
  startAccountsPlatform,
  type TransactionList,
} from './accounts-support.ts';
import { addAccounts, bankHash, type Customer, consentOnceSettled, newCustomer } from './consent-helpers.ts';

/**
 * Account information at the bank's side: the read model still served while the bank refuses (429
 * ACCESS_EXCEEDED), has expired the consent or is in maintenance; paged transactions, the account
 * list, the AIS e-mail link and DELETE iban. The reads themselves: accounts.test.ts.
 */

let platform: TestPlatform;
let alice: Customer;
let aliceAccounts: Account[];

beforeAll(async () => {
  ({ platform, alice, aliceAccounts } = await startAccountsPlatform());
}, 60_000);
afterAll(async () => {
  await platform?.stop();
});

const current = () => bgnAccountOf(aliceAccounts);

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
