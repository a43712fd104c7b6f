import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { isValidIBAN } from 'ibantools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createXs2aClient,
  type Xs2aClient,
  xs2aErrorTypeOf,
} from '../../connectors/openbanking/xs2a-client.ts';
import { type ConsentRequest, Xs2aErrorType } from '../../domain/openbanking/xs2a.ts';
import { type SandboxBanks, startSandboxBanks } from '../../sandbox/openbanking/index.ts';
import { driveSca, formsOf } from '../../sandbox/openbanking/sca-driver.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';

/**
 * The bank connector (connectors/openbanking/xs2a-client.ts) against the sandbox banks over HTTP:
 * the XS2A 1.3 consent lifecycle with the hosted SCA page driven as a browser would, account
 * information, paging, the frequencyPerDay limit, expiry and maintenance.
 */

let banks: SandboxBanks;
let tpp: Awaited<ReturnType<typeof startReceiver>>;
let bankA: Xs2aClient;
let bankB: Xs2aClient;
let bankC: Xs2aClient;

beforeAll(async () => {
  banks = await startSandboxBanks({ weeklyMaintenance: false });
  tpp = await startReceiver();
  const client = (code: string) =>
    createXs2aClient({ baseUrl: `${banks.url}/${code}`, requestTimeoutMs: 5000 });
  bankA = client('bank-a');
  bankB = client('bank-b');
  bankC = client('bank-c');
});
afterAll(async () => {
  await tpp?.stop();
  await banks?.stop();
});

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

const allPsd2 = (overrides: Partial<ConsentRequest> = {}): ConsentRequest => ({
  access: { allPsd2: 'allAccounts' },
  recurringIndicator: true,
  validUntil: inDays(90),
  frequencyPerDay: 4,
  combinedServiceIndicator: false,
  ...overrides,
});

/** The redirect URIs of one consent, as the gateway would pass them (its callback path). */
const redirectsFor = (state: string) => ({
  redirectUri: `${tpp.url}/redirect/web/state/${state}`,
  nokRedirectUri: `${tpp.url}/redirect/web/state/${state}?nok=1`,
});

/** A consent approved by `psuId` on the SCA page. */
async function validConsent(client: Xs2aClient, psuId: string, request = allPsd2()) {
  const created = await client.createConsent(request, redirectsFor(randomUUID()));
  await driveSca(created.scaRedirectUrl, { psuId, password: `sandbox-${psuId}`, decision: 'approve' });
  return created.consentId;
}

/** The connector failure an XS2A call ends in. */
async function failureOf(call: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  return error as ApplicationFailure;
}

describe('consent and SCA (redirect approach)', () => {
  it('received → the PSU logs in and approves → valid, and the browser is POSTed to TPP-Redirect-URI', async () => {
    const state = randomUUID();
    const created = await bankA.createConsent(allPsd2(), redirectsFor(state), { ipAddress: '192.0.2.10' });
    expect(created).toEqual({
      consentId: expect.any(String),
      consentStatus: 'received',
      scaRedirectUrl: `${banks.url}/bank-a/sca/${created.consentId}`,
    });
    expect(await bankA.getConsentStatus(created.consentId)).toBe('received');

    // The hosted page: an accessible login form, no external assets.
    const page = await (await fetch(created.scaRedirectUrl)).text();
    expect(page).toContain('<label for="psuId">User ID</label>');
    expect(page).toContain('<label for="password">Password</label>');
    expect(page).not.toMatch(/(src|href)="https?:/);

    const { returnForm, submitted } = await driveSca(created.scaRedirectUrl, {
      psuId: 'alice',
      password: 'sandbox-alice',
      decision: 'approve',
      submit: true,
    });
    expect(returnForm).toEqual({
      action: `${tpp.url}/redirect/web/state/${state}`,
      method: 'post',
      fields: { consentId: created.consentId, consentStatus: 'valid' },
    });
    expect(submitted?.status).toBe(200);
    const callback = tpp.requests.find((request) => request.path === `/hooks/redirect/web/state/${state}`);
    expect(callback?.method).toBe('POST');
    expect(Object.fromEntries(new URLSearchParams(callback!.body))).toEqual({
      consentId: created.consentId,
      consentStatus: 'valid',
    });

    expect(await bankA.getConsentStatus(created.consentId)).toBe('valid');
    expect(await bankA.getConsent(created.consentId)).toMatchObject({
      consentStatus: 'valid',
      access: { allPsd2: 'allAccounts' },
      recurringIndicator: true,
      frequencyPerDay: 4,
    });
    // The page of a decided consent does not open again.
    expect((await fetch(created.scaRedirectUrl)).status).toBe(409);
  });

  it('deny → rejected, and the browser goes to TPP-Nok-Redirect-URI; reads are refused', async () => {
    const state = randomUUID();
    const created = await bankA.createConsent(allPsd2(), redirectsFor(state));
    const { returnForm } = await driveSca(created.scaRedirectUrl, {
      psuId: 'alice',
      password: 'sandbox-alice',
      decision: 'deny',
    });
    expect(returnForm.action).toBe(`${tpp.url}/redirect/web/state/${state}?nok=1`);
    expect(returnForm.fields).toEqual({ consentId: created.consentId, consentStatus: 'rejected' });
    expect(await bankA.getConsentStatus(created.consentId)).toBe('rejected');
    const failure = await failureOf(bankA.listAccounts(created.consentId));
    expect(failure).toMatchObject({ type: Xs2aErrorType.ConsentInvalid, nonRetryable: true });
  });

  it('a wrong password shows the form again with the reason; approving needs the login session', async () => {
    const created = await bankA.createConsent(allPsd2(), redirectsFor(randomUUID()));
    const loginAction = formsOf(await (await fetch(created.scaRedirectUrl)).text())[0]!.action;
    const wrong = await fetch(new URL(loginAction, banks.url), {
      method: 'POST',
      body: new URLSearchParams({ psuId: 'alice', password: 'nope' }),
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain(
      '<p class="alert" role="alert">The user ID or password is wrong.</p>',
    );

    const forged = await fetch(`${banks.url}/bank-a/sca/${created.consentId}/decision`, {
      method: 'POST',
      body: new URLSearchParams({ decision: 'approve', session: 'guessed' }),
    });
    expect(forged.status).toBe(401);
    expect(await bankA.getConsentStatus(created.consentId)).toBe('received');
  });

  it('refuses a bad consent request with FORMAT_ERROR (non-retryable)', async () => {
    const cases: [ConsentRequest, string][] = [
      [allPsd2({ access: { balances: [{ iban: 'BG00SBXA00000000000000' }] } }), 'access.balances.0.iban'],
      [allPsd2({ validUntil: inDays(-1) }), 'validUntil'],
      [allPsd2({ recurringIndicator: false, frequencyPerDay: 4 }), 'frequencyPerDay'],
    ];
    for (const [request, field] of cases) {
      const failure = await failureOf(bankA.createConsent(request, redirectsFor('x')));
      expect(failure).toMatchObject({ type: Xs2aErrorType.FormatError, nonRetryable: true });
      expect(failure.details?.[0]).toMatchObject({ status: 400, code: 'FORMAT_ERROR' });
      expect(failure.message).toContain(field);
    }
  });

  it('answers Berlin Group error bodies: no X-Request-ID → 400 FORMAT_ERROR, unknown consent → 403 CONSENT_UNKNOWN', async () => {
    const missing = await fetch(`${banks.url}/bank-a/v1/consents/${randomUUID()}/status`);
    expect(missing.status).toBe(400);
    // Every answer carries an X-Request-ID, one of the bank's own where the request had none.
    expect(missing.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await missing.json()).toEqual({
      tppMessages: [
        {
          category: 'ERROR',
          code: 'FORMAT_ERROR',
          text: 'X-Request-ID must be a UUID',
          path: 'X-Request-ID',
        },
      ],
    });
    const unknown = await fetch(`${banks.url}/bank-a/v1/consents/${randomUUID()}/status`, {
      headers: { 'x-request-id': randomUUID() },
    });
    expect(unknown.status).toBe(403);
    expect(((await unknown.json()) as { tppMessages: { code: string }[] }).tppMessages[0]!.code).toBe(
      'CONSENT_UNKNOWN',
    );
    expect(await failureOf(bankA.getConsentStatus(randomUUID()))).toMatchObject({
      type: Xs2aErrorType.ConsentUnknown,
      nonRetryable: true,
    });
  });

  it('DELETE ends the consent as terminatedByTpp; the PSU revoking it makes it revokedByPsu', async () => {
    const terminated = await validConsent(bankA, 'bob');
    await bankA.deleteConsent(terminated);
    expect(await bankA.getConsentStatus(terminated)).toBe('terminatedByTpp');
    expect(await failureOf(bankA.listAccounts(terminated))).toMatchObject({
      type: Xs2aErrorType.ConsentInvalid,
    });

    const revoked = await validConsent(bankA, 'bob');
    const answer = await fetch(`${banks.url}/bank-a/sandbox/consents/${revoked}/revoke`, { method: 'POST' });
    expect(answer.status).toBe(204);
    expect(await bankA.getConsentStatus(revoked)).toBe('revokedByPsu');
    const failure = await failureOf(bankA.getBalances(revoked, 'any'));
    expect(failure).toMatchObject({ type: Xs2aErrorType.ConsentInvalid, nonRetryable: true });
    expect(failure.details?.[0]).toMatchObject({ status: 401, code: 'CONSENT_INVALID' });
  });

  it('a consent past validUntil is expired: reads fail with CONSENT_EXPIRED (non-retryable)', async () => {
    const consentId = await validConsent(bankA, 'bob');
    await fetch(`${banks.url}/bank-a/sandbox/consents/${consentId}/expire`, { method: 'POST' });
    expect(await bankA.getConsentStatus(consentId)).toBe('expired');
    const failure = await failureOf(bankA.listAccounts(consentId));
    expect(failure).toMatchObject({ type: Xs2aErrorType.ConsentExpired, nonRetryable: true });
    expect(failure.details?.[0]).toMatchObject({ status: 401, code: 'CONSENT_EXPIRED' });
  });

  it('a read on a consent still waiting for SCA is CONSENT_INVALID', async () => {
    const created = await bankA.createConsent(allPsd2(), redirectsFor(randomUUID()));
    expect(await failureOf(bankA.listAccounts(created.consentId))).toMatchObject({
      type: Xs2aErrorType.ConsentInvalid,
    });
  });
});

describe('account information', () => {
  let consentId: string;
  beforeAll(async () => {
    consentId = await validConsent(bankA, 'alice', allPsd2({ frequencyPerDay: 100 }));
  });

  it('lists the PSU’s accounts with valid IBANs, currencies and owner; balances on request', async () => {
    const accounts = await bankA.listAccounts(consentId);
    expect(accounts.map((account) => [account.currency, account.name])).toEqual([
      ['BGN', 'Alice current account'],
      ['EUR', 'Alice Savings'],
    ]);
    for (const account of accounts) {
      expect(isValidIBAN(account.iban)).toBe(true);
      expect(account).toMatchObject({
        resourceId: expect.stringMatching(/^acc-/),
        bic: 'SBXABGSF',
        ownerName: 'Alice Ivanova',
      });
    }
    const withBalance = await bankA.listAccounts(consentId, { withBalance: true });
    expect(withBalance[0]!.balances?.map((balance) => balance.balanceType)).toEqual([
      'closingBooked',
      'expected',
      'interimAvailable',
    ]);
  });

  it('balances are consistent with the transactions: expected = closingBooked + pending', async () => {
    const [current] = await bankA.listAccounts(consentId);
    const { account, balances } = await bankA.getBalances(consentId, current!.resourceId);
    expect(account).toEqual({ iban: current!.iban, currency: 'BGN' });
    const amount = (type: string) =>
      Math.round(
        Number(balances.find((balance) => balance.balanceType === type)!.balanceAmount.amount) * 100,
      );
    for (const balance of balances) expect(balance.balanceAmount.amount).toMatch(/^-?\d+\.\d{2}$/);
    const report = await bankA.listTransactions(consentId, current!.resourceId, { bookingStatus: 'pending' });
    const pending = report.pending.reduce(
      (sum, transaction) => sum + Math.round(Number(transaction.transactionAmount.amount) * 100),
      0,
    );
    expect(report.pending).toHaveLength(2);
    expect(amount('expected')).toBe(amount('closingBooked') + pending);
  });

  it('lists booked and pending transactions in XS2A fields, filters by date, reads one transaction', async () => {
    const [current] = await bankA.listAccounts(consentId);
    const all = await bankA.listTransactions(consentId, current!.resourceId, { bookingStatus: 'both' });
    expect(all.pages).toBe(1);
    expect(all.booked).toHaveLength(38);
    expect(all.pending).toHaveLength(2);
    const first = all.booked[0]!;
    expect(first).toMatchObject({
      transactionId: expect.stringMatching(/^tx-/),
      bookingDate: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      valueDate: expect.any(String),
      transactionAmount: { currency: 'BGN', amount: expect.stringMatching(/^-?\d+\.\d{2}$/) },
      remittanceInformationUnstructured: expect.any(String),
    });
    expect(first.creditorName ?? first.debtorName).toEqual(expect.any(String));
    expect(all.pending.every((transaction) => transaction.bookingDate === undefined)).toBe(true);

    // The same account shows the same transactions every time.
    const again = await bankA.listTransactions(consentId, current!.resourceId, { bookingStatus: 'both' });
    expect(again.booked).toEqual(all.booked);

    const dateFrom = inDays(-30);
    const dateTo = inDays(-10);
    const window = await bankA.listTransactions(consentId, current!.resourceId, {
      dateFrom,
      dateTo,
      bookingStatus: 'booked',
    });
    expect(window.booked.length).toBeGreaterThan(0);
    expect(window.booked.length).toBeLessThan(all.booked.length);
    for (const transaction of window.booked)
      expect(transaction.bookingDate! >= dateFrom && transaction.bookingDate! <= dateTo).toBe(true);
    expect(window.pending).toEqual([]);

    expect(await bankA.getTransaction(consentId, current!.resourceId, first.transactionId)).toEqual(first);
    expect(await failureOf(bankA.getTransaction(consentId, current!.resourceId, 'tx-unknown'))).toMatchObject(
      {
        type: Xs2aErrorType.ResourceUnknown,
        nonRetryable: true,
      },
    );
    expect(
      await failureOf(
        bankA.listTransactions(consentId, current!.resourceId, { dateFrom: dateTo, dateTo: dateFrom }),
      ),
    ).toMatchObject({ type: Xs2aErrorType.FormatError });
  });

  it('an account outside the consent is unknown (another PSU’s account id)', async () => {
    const bobs = await validConsent(bankA, 'bob');
    const [bobAccount] = await bankA.listAccounts(bobs);
    expect(await failureOf(bankA.getBalances(consentId, bobAccount!.resourceId))).toMatchObject({
      type: Xs2aErrorType.ResourceUnknown,
    });
  });

  it('an availableAccounts consent lists accounts only', async () => {
    const listOnly = await validConsent(
      bankA,
      'alice',
      allPsd2({
        access: { availableAccounts: 'allAccountsWithOwnerName' },
        recurringIndicator: false,
        frequencyPerDay: 1,
      }),
    );
    const accounts = await bankA.listAccounts(listOnly);
    expect(accounts.map((account) => account.ownerName)).toEqual(['Alice Ivanova', 'Alice Ivanova']);
    expect(await failureOf(bankA.getBalances(listOnly, accounts[0]!.resourceId))).toMatchObject({
      type: Xs2aErrorType.ConsentInvalid,
    });
  });

  it('the benchmark user holds an account with 10,000 transactions', async () => {
    const bench = await validConsent(bankA, 'bench');
    const [account] = await bankA.listAccounts(bench);
    const report = await bankA.listTransactions(bench, account!.resourceId, { bookingStatus: 'booked' });
    expect(report.booked).toHaveLength(10_000);
    expect(new Set(report.booked.map((transaction) => transaction.transactionId)).size).toBe(10_000);
  });
});

describe('paging through _links.next (Sandbox Bank B)', () => {
  it('answers pages of 50 linked by _links.next; listTransactions follows them all', async () => {
    const consentId = await validConsent(bankB, 'carol');
    const [account] = await bankB.listAccounts(consentId);
    const first = await bankB.listTransactionsPage(consentId, account!.resourceId, { bookingStatus: 'both' });
    expect(first.booked.length + first.pending.length).toBe(50);
    expect(first.nextPageUrl).toMatch(
      new RegExp(`^${banks.url}/bank-b/v1/accounts/${account!.resourceId}/transactions\\?.*page=2`),
    );

    const second = await bankB.listTransactionsPage(consentId, account!.resourceId, {
      nextPageUrl: first.nextPageUrl!,
    });
    expect(second.booked).toHaveLength(50);
    expect(second.booked[0]!.transactionId).not.toBe(first.booked[0]!.transactionId);

    const all = await bankB.listTransactions(consentId, account!.resourceId, { bookingStatus: 'both' });
    expect(all.pages).toBe(3);
    expect(all.booked.length + all.pending.length).toBe(120);
    expect(new Set(all.booked.map((transaction) => transaction.transactionId)).size).toBe(118);
  });

  it('refuses a next page URL that is not this account’s transactions at this bank', async () => {
    const consentId = await validConsent(bankB, 'carol');
    const [account] = await bankB.listAccounts(consentId);
    for (const nextPageUrl of [
      'http://169.254.169.254/latest/meta-data',
      `${banks.url}/bank-b/v1/accounts/other/transactions?page=2`,
    ]) {
      const failure = await failureOf(
        bankB.listTransactionsPage(consentId, account!.resourceId, { nextPageUrl }),
      );
      expect(failure).toMatchObject({ type: Xs2aErrorType.FormatError, nonRetryable: true });
    }
  });

  it('a seeded PSU gets the number of transactions asked for', async () => {
    const seeded = await fetch(`${banks.url}/bank-b/sandbox/psus`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accounts: [{ currency: 'EUR', transactions: 1000, historyDays: 400 }] }),
    });
    expect(seeded.status).toBe(201);
    const psu = (await seeded.json()) as { psuId: string; password: string; accounts: { iban: string }[] };
    expect(isValidIBAN(psu.accounts[0]!.iban)).toBe(true);
    const created = await bankB.createConsent(allPsd2(), redirectsFor(randomUUID()));
    await driveSca(created.scaRedirectUrl, { psuId: psu.psuId, password: psu.password, decision: 'approve' });
    const [account] = await bankB.listAccounts(created.consentId);
    const all = await bankB.listTransactions(created.consentId, account!.resourceId);
    expect(all.pages).toBe(20);
    expect(all.booked.length + all.pending.length).toBe(1000);
  });
});

describe('a long list as a download link (_links.download, Sandbox Bank A)', () => {
  it('answers a link to the report instead of the list; listTransactions reads the report', async () => {
    const control = (above: number | null) =>
      fetch(`${banks.url}/bank-a/sandbox/transactions-download`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ above }),
      });
    const consentId = await validConsent(bankA, 'alice');
    const [account] = await bankA.listAccounts(consentId);
    const inline = await bankA.listTransactions(consentId, account!.resourceId, { bookingStatus: 'both' });
    expect((await control(5)).status).toBe(200);
    try {
      const raw = await fetch(
        `${banks.url}/bank-a/v1/accounts/${account!.resourceId}/transactions?bookingStatus=both`,
        { headers: { 'x-request-id': randomUUID(), 'consent-id': consentId, 'psu-ip-address': '192.0.2.1' } },
      );
      const body = (await raw.json()) as { transactions?: unknown; _links: { download: { href: string } } };
      expect(body.transactions).toBeUndefined();
      expect(body._links.download.href).toContain(`/accounts/${account!.resourceId}/transactions/download/`);

      const viaDownload = await bankA.listTransactions(consentId, account!.resourceId, {
        bookingStatus: 'both',
      });
      expect(viaDownload.booked).toEqual(inline.booked);
      expect(viaDownload.pending).toEqual(inline.pending);
    } finally {
      await control(null);
    }
  });
});

describe('frequencyPerDay', () => {
  it('refuses reads past frequencyPerDay without the PSU with 429 ACCESS_EXCEEDED; the PSU present is not counted', async () => {
    const consentId = await validConsent(bankA, 'alice', allPsd2({ frequencyPerDay: 2 }));
    const [account] = await bankA.listAccounts(consentId, { psu: { ipAddress: '192.0.2.1' } });
    const id = account!.resourceId;
    await bankA.getBalances(consentId, id);
    await bankA.getBalances(consentId, id);
    const failure = await failureOf(bankA.getBalances(consentId, id));
    expect(failure).toMatchObject({ type: Xs2aErrorType.AccessExceeded, nonRetryable: true });
    expect(failure.details?.[0]).toMatchObject({ status: 429, code: 'ACCESS_EXCEEDED' });
    expect(xs2aErrorTypeOf(failure)).toBe(Xs2aErrorType.AccessExceeded);

    // With the PSU present the bank does not count; other accounts and endpoints have their own budget.
    expect((await bankA.getBalances(consentId, id, { ipAddress: '192.0.2.1' })).balances).toHaveLength(3);
    await bankA.listTransactions(consentId, id, { bookingStatus: 'booked' });
    const [, savings] = await bankA.listAccounts(consentId);
    await bankA.getBalances(consentId, savings!.resourceId);
  });

  it('following _links.next does not count as another read', async () => {
    const consentId = await validConsent(bankB, 'carol', allPsd2({ frequencyPerDay: 1 }));
    const [account] = await bankB.listAccounts(consentId, { psu: { ipAddress: '192.0.2.1' } });
    const all = await bankB.listTransactions(consentId, account!.resourceId);
    expect(all.pages).toBe(3);
    expect(await failureOf(bankB.listTransactions(consentId, account!.resourceId))).toMatchObject({
      type: Xs2aErrorType.AccessExceeded,
    });
  });
});

describe('maintenance', () => {
  afterAll(async () => {
    await fetch(`${banks.url}/bank-c/sandbox/maintenance`, { method: 'DELETE' });
  });

  it('Bank C announces its weekly window by default', async () => {
    // A sandbox of its own: the shared one runs without the (clock-dependent) default window.
    const withDefaults = await startSandboxBanks();
    try {
      const client = (code: string) =>
        createXs2aClient({ baseUrl: `${withDefaults.url}/${code}`, requestTimeoutMs: 2000 });
      const notices = await client('bank-c').getMaintenanceNotices();
      expect(notices).toHaveLength(1);
      expect(notices[0]!.message).toContain('every Sunday');
      expect(new Date(notices[0]!.startsAt).getUTCDay()).toBe(0);
      expect(await client('bank-a').getMaintenanceNotices()).toEqual([]);
      expect(await bankC.getMaintenanceNotices()).toEqual([]);
    } finally {
      await withDefaults.stop();
    }
  });

  it('during a window every XS2A call answers 503 SERVICE_UNAVAILABLE (retryable, with Retry-After)', async () => {
    // No default window in the way (it is Sunday 01:00–03:00 UTC), then a consent, then a window now.
    await fetch(`${banks.url}/bank-c/sandbox/maintenance`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ notices: [] }),
    });
    const consentId = await validConsent(bankC, 'dan');
    const startsAt = new Date(Date.now() - 60_000).toISOString();
    const endsAt = new Date(Date.now() + 600_000).toISOString();
    const set = await fetch(`${banks.url}/bank-c/sandbox/maintenance`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        notices: [{ id: 'upgrade', startsAt, endsAt, message: 'Core banking upgrade' }],
      }),
    });
    expect(set.status).toBe(200);

    expect(await bankC.getMaintenanceNotices()).toEqual([
      { id: 'upgrade', startsAt, endsAt, message: 'Core banking upgrade' },
    ]);
    const failure = await failureOf(bankC.listAccounts(consentId));
    expect(failure).toMatchObject({ type: Xs2aErrorType.BankUnavailable, nonRetryable: false });
    // The 1.3 schema's 503 carries headers only; the notice is read at GET /v1/maintenance.
    expect(failure.details?.[0]).toMatchObject({ status: 503, code: null, text: null });
    expect((failure.details![0] as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(500);
    expect(await failureOf(bankC.createConsent(allPsd2(), redirectsFor('x')))).toMatchObject({
      type: Xs2aErrorType.BankUnavailable,
    });

    await fetch(`${banks.url}/bank-c/sandbox/maintenance`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ notices: [] }),
    });
    expect(await bankC.listAccounts(consentId)).toHaveLength(1);
  });

  it('an unreachable bank is retryable Xs2aBankUnavailable', async () => {
    const closed = await startSandboxBanks();
    await closed.stop();
    const failure = await failureOf(
      createXs2aClient({ baseUrl: `${closed.url}/bank-a`, requestTimeoutMs: 2000 }).getMaintenanceNotices(),
    );
    expect(failure).toMatchObject({ type: Xs2aErrorType.BankUnavailable, nonRetryable: false });
  });
});
