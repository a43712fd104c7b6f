import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obAccounts, obConsents } from '../../db/schema/openbanking.ts';
import { budgetDetailsSchema } from '../../domain/openbanking/payment-orders.ts';
import { driveSca } from '../../sandbox/openbanking/sca-driver.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { enrolUser } from '../support/openbanking-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { bankHash, consentOnceSettled, newCustomer } from './consent-helpers.ts';
import {
  bankOf,
  CREDITOR,
  confirm,
  createIbanPayment,
  type PayingCustomer,
  payingCustomer,
  paymentOnceSettled,
  paymentStatus,
  type Receiver,
  verifiedPaymentHook,
} from './payment-helpers.ts';

/**
 * The rules around single payments: the spec's headers in each operation's definition, the budget
 * validation table, the access matrix (users vs agents, another agent's payments 404), the
 * authorization flag and how payment/sca restores it, payments by hook hash, the bank refusing or being
 * slow, and a payment nobody confirms.
 */

let platform: TestPlatform;
let hooks: Receiver;
let alice: PayingCustomer;

beforeAll(async () => {
  platform = await startTestPlatform({
    env: { OPENBANKING_PAYMENT_CONFIRMATION_TIMEOUT: '15s', OPENBANKING_BANK_REQUEST_TIMEOUT: '1s' },
  });
  hooks = await startReceiver();
  alice = await payingCustomer(platform, hooks);
});
afterAll(async () => {
  await platform?.stop();
  await hooks?.stop();
});

type OpenApi = {
  paths: Record<
    string,
    Record<string, { security?: Record<string, string[]>[]; parameters?: { name: string; in: string }[] }>
  >;
};

describe('the spec’s headers', () => {
  /** [method, path, credential, User-Agent listed by the spec] */
  const ROWS: [string, string, 'user' | 'agent', boolean][] = [
    ['get', '/api/8/payment/ibans/{ibanId}', 'user', false],
    ['post', '/api/8/payment/sca/{ibanId}', 'user', false],
    ['post', '/api/8/payment/iban', 'user', false],
    ['post', '/api/8/payment/direct', 'user', true],
    ['post', '/api/8/payment/direct-initiate', 'user', true],
    ['post', '/api/8/budget-request', 'user', false],
    ['post', '/api/8/budget-request/no-iban', 'user', true],
    ['post', '/api/8/payment', 'user', true],
    ['put', '/api/8/payment', 'user', true],
    ['put', '/api/8/payment/verify-sms', 'user', true],
    ['get', '/api/8/payment/status', 'user', false],
    ['get', '/api/8/status/{hookHash}', 'agent', false],
    // Not the spec's: the cancellation (decision 0070), shaped like its payment operations.
    ['delete', '/api/8/payment/{code}', 'user', true],
  ];

  it('each operation documents its credential (x-user-hash or the bearer user token; x-agent-hash) and User-Agent', async () => {
    const { body } = await alice.call<OpenApi>('GET', '/openapi.json');
    for (const [method, path, credential, userAgent] of ROWS) {
      const operation = body.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      const schemes = (operation!.security ?? []).flatMap((alternative) => Object.keys(alternative)).sort();
      expect(schemes, `${method} ${path}`).toEqual(
        credential === 'user' ? ['userHash', 'userToken'] : ['agentHash'],
      );
      const headers = (operation!.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
      if (userAgent) expect(headers, `${method} ${path}`).toContain('user-agent');
    }
  });
});

describe('budget details', () => {
  const base = () => ({
    ibanId: alice.accounts[0]!.ibanId,
    ...CREDITOR,
    amount: '1.00',
    currency: alice.accounts[0]!.currency,
  });
  const TYPE_MESSAGE = 'must be one of 1, 2, 3, 4, 5, 6, 9';
  const CATEGORY_MESSAGE = 'must be exactly six digits';

  it('accepts exactly the spec’s report types and six-digit categories', () => {
    for (const type of [1, 2, 3, 4, 5, 6, 9, '1', '9'])
      expect(
        budgetDetailsSchema.safeParse({ regulatoryReportType: type, paymentCategory: '110000' }).success,
        `${type}`,
      ).toBe(true);
    for (const type of [0, 7, 8, 10, '01', 'a', ''])
      expect(
        budgetDetailsSchema.safeParse({ regulatoryReportType: type, paymentCategory: '110000' }).success,
        `${type}`,
      ).toBe(false);
  });

  it.each([
    [{ regulatoryReportType: 7, paymentCategory: '110000' }, 'regulatoryReportType', TYPE_MESSAGE],
    [{ regulatoryReportType: '0', paymentCategory: '110000' }, 'regulatoryReportType', TYPE_MESSAGE],
    [{ regulatoryReportType: 'x', paymentCategory: '110000' }, 'regulatoryReportType', TYPE_MESSAGE],
    [{ regulatoryReportType: 1, paymentCategory: '11000' }, 'paymentCategory', CATEGORY_MESSAGE],
    [{ regulatoryReportType: 1, paymentCategory: '1100000' }, 'paymentCategory', CATEGORY_MESSAGE],
    [{ regulatoryReportType: 1, paymentCategory: '11000a' }, 'paymentCategory', CATEGORY_MESSAGE],
    [{ regulatoryReportType: 1, paymentCategory: '' }, 'paymentCategory', CATEGORY_MESSAGE],
  ])('refuses %j naming %s', async (budget, field, message) => {
    for (const [path, body] of [
      ['/api/8/budget-request', { ...base(), ...budget }],
      [
        '/api/8/budget-request/no-iban',
        {
          ...base(),
          ibanId: undefined,
          bankHash: bankHash('bank-a'),
          debtorIban: alice.accounts[0]!.iban,
          ...budget,
        },
      ],
    ] as const) {
      const response = await alice.call('POST', path, { headers: alice.headers, body });
      expect(response.status, path).toBe(400);
      expect(response.body.error?.code).toBe('validation_failed');
      expect(response.body.error?.fields).toEqual([{ field, message }]);
    }
  });

  it('requires both fields', async () => {
    const response = await alice.call('POST', '/api/8/budget-request', {
      headers: alice.headers,
      body: base(),
    });
    expect(response.status).toBe(400);
    expect(response.body.error?.fields?.map((f) => f.field).sort()).toEqual([
      'paymentCategory',
      'regulatoryReportType',
    ]);
  });
});

describe('access matrix', () => {
  it('user operations refuse an agent’s credential, agent operations refuse a user’s', async () => {
    const payment = await createIbanPayment(alice);
    const asAgent = await alice.call('GET', `/api/8/payment/status?code=${payment.code}`, {
      headers: { 'x-agent-hash': alice.agentHash },
    });
    expect(asAgent.status).toBe(401);
    const asUser = await alice.call('GET', `/api/8/status/${alice.hookHash}`, { headers: alice.headers });
    expect(asUser.status).toBe(401);
  });

  it('accepts the customer’s bearer user token for payments', async () => {
    const token = await alice.call<{ token: string }>('POST', '/api/8/usertoken', { headers: alice.headers });
    const created = await alice.call<{ code: string }>('POST', '/api/6/payment/iban', {
      headers: { authorization: `Bearer ${token.body.token}` },
      body: {
        ibanId: alice.accounts[0]!.ibanId,
        ...CREDITOR,
        amount: '1.00',
        currency: alice.accounts[0]!.currency,
      },
    });
    expect(created.status).toBe(201);
    const status = await alice.call('GET', `/api/6/payment/status?code=${created.body.code}`, {
      headers: { authorization: `Bearer ${token.body.token}` },
    });
    expect(status.body).toMatchObject({ code: created.body.code, status: 'WAITING' });
  });

  it('another agent’s (and another user’s) payments, accounts and hooks are 404, never data', async () => {
    const payment = await createIbanPayment(alice);
    const mallory = await newCustomer(platform, 'Mallory agent');
    const sameAgentOtherUser = await enrolUser(alice.call, alice.agentHash);
    const account = alice.accounts[0]!;
    for (const headers of [mallory.headers, { 'x-user-hash': sameAgentOtherUser.userHash }]) {
      const attempts = [
        alice.call('GET', `/api/8/payment/status?code=${payment.code}`, { headers }),
        alice.call('POST', '/api/8/payment', { headers, body: { code: payment.code } }),
        alice.call('PUT', '/api/8/payment', { headers, body: { code: payment.code } }),
        alice.call('PUT', '/api/8/payment/verify-sms', {
          headers,
          body: { code: payment.code, smsCode: '123456' },
        }),
        alice.call('DELETE', `/api/8/payment/${payment.code}`, { headers }),
        alice.call('GET', `/api/8/payment/ibans/${account.ibanId}`, { headers }),
        alice.call('POST', `/api/8/payment/sca/${account.ibanId}`, { headers, body: {} }),
        alice.call('POST', '/api/8/payment/iban', {
          headers,
          body: { ibanId: account.ibanId, ...CREDITOR, amount: '1.00', currency: account.currency },
        }),
      ];
      for (const response of await Promise.all(attempts)) {
        expect(response.status).toBe(404);
        expect(response.body.error?.code).toBe('not_found');
        expect(JSON.stringify(response.body)).not.toContain(account.iban);
      }
    }
    const byHook = await alice.call('GET', `/api/8/status/${alice.hookHash}`, {
      headers: { 'x-agent-hash': mallory.agentHash },
    });
    expect(byHook.status).toBe(404);
    expect(JSON.stringify(byHook.body)).not.toContain(payment.code);
    // Nothing moved: the payment is as it was.
    expect((await paymentStatus(alice, payment.code)).body).toMatchObject({ state: 'CREATED' });
  });
});

describe('the authorization flag', () => {
  it('false once the account’s consent ended: confirming is 409, payment/sca starts a consent that restores it', async () => {
    const account = alice.accounts[0]!;
    const [row] = await platform.db.select().from(obAccounts).where(eq(obAccounts.id, account.ibanId));
    await platform.db.update(obConsents).set({ status: 'EXPIRED' }).where(eq(obConsents.id, row!.consentId));

    const flag = await alice.call('GET', `/api/7/payment/ibans/${account.ibanId}`, {
      headers: alice.headers,
    });
    expect(flag.body).toMatchObject({
      authorized: false,
      reason: 'the consent that added the account is EXPIRED',
    });
    const payment = await createIbanPayment(alice, {}, 6);
    expect(payment.authorized).toBe(false);
    const refused = await confirm(alice, payment.code, {}, 'PUT', 6);
    expect(refused.status).toBe(409);
    expect(refused.body.error?.code).toBe('payment_not_authorized');

    const sca = await alice.call<{ action: string; scaRedirectUrl: string; consentId: string }>(
      'POST',
      `/api/6/payment/sca/${account.ibanId}`,
      { headers: alice.headers, body: {} },
    );
    expect(sca.status).toBe(200);
    expect(sca.body).toMatchObject({ action: 'redirect', authorized: false });
    await driveSca(sca.body.scaRedirectUrl, {
      psuId: 'alice',
      password: 'sandbox-alice',
      decision: 'approve',
      submit: true,
    });
    await consentOnceSettled(alice, sca.body.consentId);
    const restored = await alice.call('GET', `/api/6/payment/ibans/${account.ibanId}`, {
      headers: alice.headers,
    });
    expect(restored.body).toMatchObject({ authorized: true });
    const again = await alice.call('POST', `/api/6/payment/sca/${account.ibanId}`, {
      headers: alice.headers,
    });
    expect(again.body).toMatchObject({ action: 'none', authorized: true, scaRedirectUrl: null });

    const confirmed = await confirm(alice, payment.code, { scaMethod: 'REDIRECT' }, 'POST', 6);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ state: 'AWAITING_SCA' });
  });
});

describe('payments by hook hash', () => {
  it('answers the latest payment made with the hook, and its recent ones, in the agent’s language', async () => {
    const first = await createIbanPayment(alice);
    const second = await createIbanPayment(alice, { amount: '2.00' });
    const en = await alice.call<{
      payment: { code: string };
      payments: { code: string }[];
      message: string;
      status: string;
    }>('GET', `/api/7/status/${alice.hookHash}`, { headers: { 'x-agent-hash': alice.agentHash } });
    expect(en.status).toBe(200);
    expect(en.body.payment.code).toBe(second.code);
    expect(en.body.payments.map((p) => p.code).slice(0, 2)).toEqual([second.code, first.code]);
    expect(en.body).toMatchObject({
      status: 'WAITING',
      message: 'The payment is waiting for the customer’s confirmation at the bank.',
    });
    const bg = await alice.call('GET', `/api/8/status/${alice.hookHash}?lng=bg`, {
      headers: { 'x-agent-hash': alice.agentHash },
    });
    expect(bg.body.message).toBe('Плащането очаква потвърждение от клиента в банката.');
    expect(
      (
        await alice.call('GET', `/api/8/status/${alice.hookHash}?lng=de`, {
          headers: { 'x-agent-hash': alice.agentHash },
        })
      ).status,
    ).toBe(400);
  });
});

describe('direct payments', () => {
  it('direct-initiate creates, calls the bank and answers the SCA URL and method in one call (version 8 only)', async () => {
    const body = {
      bankHash: bankHash('bank-a'),
      debtorIban: alice.accounts[0]!.iban,
      ...CREDITOR,
      amount: '4.00',
      currency: alice.accounts[0]!.currency,
      scaMethod: 'REDIRECT',
    };
    const initiated = await alice.call<{ code: string; sca: { method: string; redirectUrl: string } }>(
      'POST',
      '/api/8/payment/direct-initiate',
      { headers: { ...alice.headers, 'user-agent': 'Direct test' }, body },
    );
    expect(initiated.status).toBe(201);
    expect(initiated.body).toMatchObject({
      kind: 'direct',
      state: 'AWAITING_SCA',
      sca: { method: 'REDIRECT' },
    });
    expect(initiated.body.sca.redirectUrl).toContain('/bank-a/sca/payments/');
    expect([...bankOf(platform).payments.values()].at(-1)!.psuUserAgent).toBe('Direct test');
    // Confirming again answers the same.
    const again = await confirm(alice, initiated.body.code);
    expect(again.body).toMatchObject({
      state: 'AWAITING_SCA',
      sca: { redirectUrl: initiated.body.sca.redirectUrl },
    });
    expect(
      (await alice.call('POST', '/api/7/payment/direct-initiate', { headers: alice.headers, body })).status,
    ).toBe(404);
  });

  it('a budget payment without an added account', async () => {
    const created = await alice.call<{ code: string }>('POST', '/api/7/budget-request/no-iban', {
      headers: alice.headers,
      body: {
        bankHash: bankHash('bank-a'),
        debtorIban: alice.accounts[0]!.iban,
        ...CREDITOR,
        amount: '5.00',
        currency: alice.accounts[0]!.currency,
        regulatoryReportType: '9',
        paymentCategory: '445566',
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'budget_no_iban', ibanId: null, authorized: null });
  });
});

describe('the bank refuses, is slow, or the money is missing', () => {
  it('a bank that refuses payments from the account: FAILED with the bank’s reason, no debit', async () => {
    const account = alice.accounts[0]!;
    const ledger = bankOf(platform).ledger;
    const debits = ledger.debits(account.iban).length;
    ledger.setBehaviour(account.iban, { kind: 'reject' });
    try {
      const payment = await createIbanPayment(alice);
      const confirmed = await confirm(alice, payment.code, { scaMethod: 'REDIRECT' });
      expect(confirmed.status).toBe(200);
      expect(confirmed.body).toMatchObject({ status: 'FAILED', state: 'FAILED' });
      expect(confirmed.body.statusReason).toContain('PAYMENT_FAILED');
      await verifiedPaymentHook(platform, hooks, payment.callbackState);
    } finally {
      ledger.setBehaviour(account.iban, { kind: 'normal' });
    }
    expect(ledger.debits(account.iban)).toHaveLength(debits);
  });

  it('a bank that never answers: FAILED once the attempts are spent, nothing debited', async () => {
    const account = alice.accounts[0]!;
    const ledger = bankOf(platform).ledger;
    const debits = ledger.debits(account.iban).length;
    ledger.setBehaviour(account.iban, { kind: 'timeout' });
    try {
      const payment = await createIbanPayment(alice);
      const confirmed = await confirm(alice, payment.code, { scaMethod: 'DECOUPLED' });
      expect(confirmed.status).toBe(200);
      expect(confirmed.body).toMatchObject({ status: 'FAILED', state: 'FAILED' });
      expect(confirmed.body.statusReason).toContain('no answer within 1000 ms');
    } finally {
      ledger.setBehaviour(account.iban, { kind: 'normal' });
    }
    // Payments the bank may have recorded meanwhile were never authorised: no money moved.
    expect(ledger.debits(account.iban)).toHaveLength(debits);
  });

  it('a slow bank still gets one payment; missing funds end the payment FAILED (RJCT) after the SCA', async () => {
    const account = alice.accounts[0]!;
    const ledger = bankOf(platform).ledger;
    ledger.setBehaviour(account.iban, { kind: 'slow', delayMs: 300 });
    const slow = await createIbanPayment(alice);
    const confirmed = await confirm(alice, slow.code, { scaMethod: 'DECOUPLED' });
    expect(confirmed.body).toMatchObject({ state: 'AWAITING_SCA' });
    expect(
      [...bankOf(platform).payments.values()].filter(
        (p) => p.request.endToEndIdentification === slow.code.slice(4, 39),
      ),
    ).toHaveLength(1);

    ledger.setBehaviour(account.iban, { kind: 'insufficient' });
    const poor = await createIbanPayment(alice);
    await confirm(alice, poor.code, { scaMethod: 'DECOUPLED' });
    const bankPayment = [...bankOf(platform).payments.values()].at(-1)!;
    await fetch(
      `${platform.sandbox.banks.url}/bank-a/sandbox/payments/${bankPayment.paymentId}/decoupled/approve`,
      {
        method: 'POST',
      },
    );
    const done = await paymentOnceSettled(alice, poor.code);
    expect(done).toMatchObject({ status: 'FAILED', state: 'REJECTED', bankTransactionStatus: 'RJCT' });
    expect(ledger.debitOf(bankPayment.paymentId)).toBeUndefined();
    ledger.setBehaviour(account.iban, { kind: 'normal' });
  });
});

describe('a payment nobody confirms', () => {
  it('is EXPIRED after OPENBANKING_PAYMENT_CONFIRMATION_TIMEOUT, and the hook says so', async () => {
    const payment = await createIbanPayment(alice);
    const done = await eventually(
      async () => {
        const { body } = await paymentStatus(alice, payment.code);
        return body.status === 'FAILED' ? body : undefined;
      },
      30_000,
      'the payment to expire',
    );
    expect(done).toMatchObject({ state: 'EXPIRED', statusReason: 'the payment was not confirmed in time' });
    const event = await verifiedPaymentHook(platform, hooks, payment.callbackState);
    expect(event).toMatchObject({ status: 'FAILED', paymentState: 'EXPIRED' });
    // Confirming it now answers the expired payment.
    expect((await confirm(alice, payment.code)).body).toMatchObject({ state: 'EXPIRED' });
  });
});
