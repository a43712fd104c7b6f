import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveSca } from '../../sandbox/openbanking/sca-driver.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { type Customer, newCustomer } from './consent-helpers.ts';
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
  smsCodeFor,
  verifiedPaymentHook,
} from './payment-helpers.ts';

/**
 * Single payments end to end over HTTP, the way an integrator and its customer meet them: the account's
 * authorization flag → the payment (code) → confirmation → the user's SCA at the bank (redirect page,
 * the bank's SMS code, or approval in the bank's app) → status → the hook called with a JWS verifiable
 * with the published JWKS. The sandbox bank's ledger is the witness: one debit per payment, whatever
 * is repeated. (The redirect SCA in a real browser: payment.browser.test.ts.)
 */

let platform: TestPlatform;
let hooks: Receiver;
let alice: PayingCustomer;

beforeAll(async () => {
  platform = await startTestPlatform();
  hooks = await startReceiver();
  alice = await payingCustomer(platform, hooks);
});
afterAll(async () => {
  await platform?.stop();
  await hooks?.stop();
});

describe('a payment from an added account, authenticated on the bank’s page (redirect)', () => {
  it('authorization flag → create → confirm → SCA → CONFIRMED, one debit, a signed hook call', async () => {
    const account = alice.accounts[0]!;
    const flag = await alice.call('GET', `/api/8/payment/ibans/${account.ibanId}`, {
      headers: alice.headers,
    });
    expect(flag.status).toBe(200);
    expect(flag.body).toMatchObject({
      ibanId: account.ibanId,
      iban: account.iban,
      authorized: true,
      reason: null,
    });

    const ledger = bankOf(platform).ledger;
    const before = ledger.balanceOf(account.iban)!;
    const created = await createIbanPayment(alice);
    expect(created).toMatchObject({
      status: 'WAITING',
      state: 'CREATED',
      kind: 'iban',
      authorized: true,
      amount: '12.50',
    });

    const confirmed = await confirm(alice, created.code, { scaMethod: 'REDIRECT' });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({
      status: 'WAITING',
      state: 'AWAITING_SCA',
      sca: { method: 'REDIRECT' },
    });
    const redirectUrl = confirmed.body.sca!.redirectUrl!;
    expect(redirectUrl).toContain('/bank-a/sca/payments/');
    // The PSU's browser went to the bank with the customer's User-Agent.
    const bankPayment = [...bankOf(platform).payments.values()].at(-1)!;
    expect(bankPayment.psuUserAgent).toBe('Payment test');

    const { submitted } = await driveSca(redirectUrl, {
      psuId: 'alice',
      password: 'sandbox-alice',
      decision: 'approve',
      submit: true,
    });
    expect(submitted!.status).toBe(200);

    const done = await paymentOnceSettled(alice, created.code);
    expect(done).toMatchObject({ status: 'CONFIRMED', state: 'EXECUTED', bankTransactionStatus: 'ACSC' });
    expect(
      ledger.debits(account.iban).filter((debit) => debit.paymentId === bankPayment.paymentId),
    ).toHaveLength(1);
    expect(ledger.balanceOf(account.iban)).toBe(before - 1250);

    const event = await verifiedPaymentHook(platform, hooks, created.callbackState);
    expect(event).toMatchObject({
      code: created.code,
      status: 'CONFIRMED',
      amount: '12.50',
      hookHash: alice.hookHash,
    });

    // Confirming again answers the same payment and moves no money.
    for (const method of ['POST', 'PUT'] as const) {
      const again = await confirm(alice, created.code, {}, method);
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ code: created.code, status: 'CONFIRMED' });
    }
    expect(ledger.balanceOf(account.iban)).toBe(before - 1250);
  });

  it('the user denies at the bank: FAILED, no debit', async () => {
    const account = alice.accounts[0]!;
    const ledger = bankOf(platform).ledger;
    const debits = ledger.debits(account.iban).length;
    const created = await createIbanPayment(alice);
    const confirmed = await confirm(alice, created.code, { scaMethod: 'REDIRECT' });
    await driveSca(confirmed.body.sca!.redirectUrl!, {
      psuId: 'alice',
      password: 'sandbox-alice',
      decision: 'deny',
      submit: true,
    });
    const done = await paymentOnceSettled(alice, created.code);
    expect(done).toMatchObject({ status: 'FAILED', state: 'REJECTED', bankTransactionStatus: 'RJCT' });
    expect(ledger.debits(account.iban)).toHaveLength(debits);
  });
});

describe('a budget payment authenticated with the bank’s SMS code (embedded)', () => {
  it('the code texted to the user, relayed by verify-sms: CONFIRMED, one debit; wrong, expired and used codes are refused', async () => {
    const account = alice.accounts[0]!;
    const ledger = bankOf(platform).ledger;
    const created = await alice.call<{ code: string; callbackState: string; budget: unknown }>(
      'POST',
      '/api/8/budget-request',
      {
        headers: alice.headers,
        body: {
          ibanId: account.ibanId,
          ...CREDITOR,
          amount: '20.00',
          currency: account.currency,
          hookHash: alice.hookHash,
          regulatoryReportType: 1,
          paymentCategory: '110000',
          documentNumber: 'D-2026-1',
        },
      },
    );
    expect(created.status).toBe(201);
    expect(created.body.budget).toEqual({
      regulatoryReportType: '1',
      paymentCategory: '110000',
      details: { documentNumber: 'D-2026-1' },
    });
    const sentAfter = Date.now();
    const confirmed = await confirm(alice, created.body.code, { scaMethod: 'EMBEDDED_SMS_OTP' }, 'PUT');
    expect(confirmed.body).toMatchObject({ state: 'AWAITING_SCA', sca: { method: 'EMBEDDED_SMS_OTP' } });
    expect(confirmed.body.sca!.message).toMatch(/code was sent/);
    const smsCode = await smsCodeFor(platform, 'alice', sentAfter);
    // The budget details reached the bank in the documented fields.
    const bankPayment = [...bankOf(platform).payments.values()].at(-1)!;
    expect(bankPayment.request.remittanceInformationStructured).toEqual({
      reference: '110000',
      referenceType: 'BGBUDGET',
      referenceIssuer: '1',
    });
    expect(bankPayment.request.remittanceInformationUnstructured).toBe('BUDGET/1/110000/D-2026-1');

    const verify = (code: string, smsCode: string, customer: Customer = alice) =>
      customer.call('PUT', '/api/8/payment/verify-sms', {
        headers: { ...customer.headers, 'user-agent': 'Payment test' },
        body: { code, smsCode },
      });
    const wrong = await verify(created.body.code, smsCode === '000000' ? '111111' : '000000');
    expect(wrong.status).toBe(422);
    expect(wrong.body.error).toEqual({ code: 'sms_code_invalid', message: 'The SMS code is wrong' });

    // Another user's payment code is not found (existence not leaked), with the right SMS code too.
    const mallory = await newCustomer(platform, 'Other agent');
    const foreign = await verify(created.body.code, smsCode, mallory);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error?.code).toBe('not_found');
    expect((await confirm(mallory, created.body.code)).status).toBe(404);
    expect((await paymentStatus(mallory, created.body.code)).status).toBe(404);

    const right = await verify(created.body.code, smsCode);
    expect(right.status).toBe(200);
    expect(right.body).toMatchObject({ status: 'CONFIRMED', state: 'EXECUTED' });
    const used = await verify(created.body.code, smsCode);
    expect(used.status).toBe(409);
    expect(used.body.error).toEqual({ code: 'sms_code_used', message: 'The SMS code was already used' });
    expect((await confirm(alice, created.body.code)).body).toMatchObject({ status: 'CONFIRMED' });
    expect(
      ledger.debits(account.iban).filter((debit) => debit.paymentId === bankPayment.paymentId),
    ).toHaveLength(1);
    const event = await verifiedPaymentHook(platform, hooks, created.body.callbackState);
    expect(event).toMatchObject({ code: created.body.code, kind: 'budget', status: 'CONFIRMED' });

    // An expired code: refused with its own error, and nothing is debited.
    const second = await createIbanPayment(alice);
    const after2 = Date.now();
    await confirm(alice, second.code, { scaMethod: 'EMBEDDED_SMS_OTP' });
    const code2 = await smsCodeFor(platform, 'alice', after2);
    const bankPayment2 = [...bankOf(platform).payments.values()].at(-1)!;
    const expire = await fetch(
      `${platform.sandbox.banks.url}/bank-a/sandbox/payments/${bankPayment2.paymentId}/expire-code`,
      {
        method: 'POST',
      },
    );
    expect(expire.status).toBe(204);
    const expired = await verify(second.code, code2);
    expect(expired.status).toBe(422);
    expect(expired.body.error).toEqual({ code: 'sms_code_expired', message: 'The SMS code has expired' });
    expect(ledger.debitOf(bankPayment2.paymentId)).toBeUndefined();
    expect((await paymentStatus(alice, second.code)).body).toMatchObject({
      status: 'WAITING',
      state: 'AWAITING_SCA',
    });
  });
});

describe('a direct payment approved in the bank’s app (decoupled)', () => {
  it('the gateway reads the authorisation until the user approved: CONFIRMED, one debit, signed hook', async () => {
    const account = alice.accounts[0]!;
    const ledger = bankOf(platform).ledger;
    const created = await alice.call<{ code: string; callbackState: string }>(
      'POST',
      '/api/7/payment/direct',
      {
        headers: alice.headers,
        body: {
          bankHash: (await import('./consent-helpers.ts')).bankHash('bank-a'),
          debtorIban: account.iban,
          ...CREDITOR,
          amount: '3.10',
          currency: account.currency,
          hookHash: alice.hookHash,
        },
      },
    );
    expect(created.status).toBe(201);
    const confirmed = await confirm(alice, created.body.code, { scaMethod: 'DECOUPLED' }, 'POST', 7);
    expect(confirmed.body).toMatchObject({ state: 'AWAITING_SCA', sca: { method: 'DECOUPLED' } });
    const bankPayment = [...bankOf(platform).payments.values()].at(-1)!;
    const approve = await fetch(
      `${platform.sandbox.banks.url}/bank-a/sandbox/payments/${bankPayment.paymentId}/decoupled/approve`,
      { method: 'POST' },
    );
    expect(approve.status).toBe(204);
    const done = await paymentOnceSettled(alice, created.body.code);
    expect(done).toMatchObject({ status: 'CONFIRMED', kind: 'direct', ibanId: null });
    expect(
      ledger.debits(account.iban).filter((debit) => debit.paymentId === bankPayment.paymentId),
    ).toHaveLength(1);
    const event = await verifiedPaymentHook(platform, hooks, created.body.callbackState);
    expect(event).toMatchObject({ code: created.body.code, status: 'CONFIRMED' });
  });
});
