import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentCancellationView } from '../../application/openbanking/index.ts';
import { createXs2aClient, xs2aErrorTypeOf } from '../../connectors/openbanking/xs2a-client.ts';
import { bankHashOf } from '../../domain/openbanking/bank-directory.ts';
import type { PaymentInitiationRequest } from '../../domain/openbanking/xs2a.ts';
import { Xs2aErrorType } from '../../domain/openbanking/xs2a.ts';
import {
  ibanOf,
  SANDBOX_BANKS,
  type SandboxBanks,
  startSandboxBanks,
} from '../../sandbox/openbanking/index.ts';
import { driveSca } from '../../sandbox/openbanking/sca-driver.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { type Customer, newCustomer } from './consent-helpers.ts';
import {
  bankOf,
  CREDITOR,
  confirm,
  paymentOnceSettled,
  paymentStatus,
  type Receiver,
  verifiedPaymentHook,
} from './payment-helpers.ts';

/**
 * Payment cancellation with its own SCA (decision 0061), as the connector meets it at the sandbox banks
 * over loopback: Bank R wants the PSU to authorise a cancellation (DELETE → 202 with
 * `startAuthorisation` → POST …/cancellation-authorisations → the bank's page), Bank A cancels a
 * payment not yet authorised at once (204), and a payment past cancelling is 405 CANCELLATION_INVALID.
 */

let banks: SandboxBanks;
beforeAll(async () => {
  banks = await startSandboxBanks({ weeklyMaintenance: false });
});
afterAll(async () => {
  await banks?.stop();
});

const CALLBACK = 'https://tpp.example/callback';
const client = (code: string) =>
  createXs2aClient({ baseUrl: `${banks.url}/${code}`, requestTimeoutMs: 5_000 });
const definition = (code: string) => SANDBOX_BANKS.find((bank) => bank.code === code)!;
const paymentFrom = (iban: string, currency: string): PaymentInitiationRequest => ({
  debtorAccount: { iban, currency },
  instructedAmount: { currency, amount: '3.00' },
  creditorAccount: { iban: 'BG80BNBG96611020345678' },
  creditorName: 'Sofia Water',
});
const PRODUCT = 'sepa-credit-transfers' as const;
const rita = { psuId: 'rita', password: 'sandbox-rita' };

async function paymentAtBankR() {
  const bank = client('bank-r');
  const initiated = await bank.initiatePayment(
    PRODUCT,
    paymentFrom(ibanOf(definition('bank-r'), '00000000001'), 'EUR'),
    {
      approach: 'REDIRECT',
      redirectUri: CALLBACK,
    },
  );
  expect(initiated.scaRedirectUrl).toContain('/bank-r/sca/payments/');
  return { bank, initiated };
}

describe('cancellation with its own SCA (Bank R)', () => {
  it('DELETE → 202 → the cancellation authorised on the bank’s page: CANC, no debit, the payment’s SCA closed', async () => {
    const { bank, initiated } = await paymentAtBankR();
    const cancellation = await bank.cancelPayment(PRODUCT, initiated.paymentId, { redirectUri: CALLBACK });
    if (cancellation.status !== 'authorisationNeeded') throw new Error('expected an authorisation');
    expect(cancellation.scaRedirectUrl).toContain('/bank-r/sca/payment-cancellations/');
    // Not cancelled before the PSU says so.
    expect(await bank.getPaymentStatus(PRODUCT, initiated.paymentId)).toBe('RCVD');
    expect(
      await bank.getCancellationAuthorisationStatus(PRODUCT, initiated.paymentId, cancellation.scaStatusUrl!),
    ).toBe('received');

    const { returnForm } = await driveSca(cancellation.scaRedirectUrl, { ...rita, decision: 'approve' });
    expect(returnForm.action).toBe(CALLBACK);
    expect(returnForm.fields).toMatchObject({ paymentId: initiated.paymentId, transactionStatus: 'CANC' });
    expect(await bank.getPaymentStatus(PRODUCT, initiated.paymentId)).toBe('CANC');
    expect(
      await bank.getCancellationAuthorisationStatus(PRODUCT, initiated.paymentId, cancellation.scaStatusUrl!),
    ).toBe('finalised');
    expect((await fetch(initiated.scaRedirectUrl!)).status).toBe(409);
    const ledger = banks.banks.get('bank-r')!.ledger;
    expect(
      ledger
        .debits(ibanOf(definition('bank-r'), '00000000001'))
        .filter((debit) => debit.paymentId === initiated.paymentId),
    ).toEqual([]);
  });

  it('the PSU keeps the payment: the cancellation fails, the payment stays RCVD and can still be authorised', async () => {
    const { bank, initiated } = await paymentAtBankR();
    const cancellation = await bank.cancelPayment(PRODUCT, initiated.paymentId, { redirectUri: CALLBACK });
    if (cancellation.status !== 'authorisationNeeded') throw new Error('expected an authorisation');
    await driveSca(cancellation.scaRedirectUrl, { ...rita, decision: 'deny' });
    expect(
      await bank.getCancellationAuthorisationStatus(PRODUCT, initiated.paymentId, cancellation.scaStatusUrl!),
    ).toBe('failed');
    expect(await bank.getPaymentStatus(PRODUCT, initiated.paymentId)).toBe('RCVD');
    await driveSca(initiated.scaRedirectUrl!, { ...rita, decision: 'approve' });
    expect(await bank.getPaymentStatus(PRODUCT, initiated.paymentId)).toBe('ACSC');
  });

  it('a link to the cancellation’s status that leaves the payment is refused, not followed', async () => {
    const { bank, initiated } = await paymentAtBankR();
    const failure = await bank
      .getCancellationAuthorisationStatus(PRODUCT, initiated.paymentId, 'https://elsewhere.example/status')
      .catch((error: unknown) => error);
    expect(xs2aErrorTypeOf(failure)).toBe(Xs2aErrorType.ProtocolError);
  });
});

describe('cancellation without SCA (Bank A)', () => {
  const alice = ibanOf(definition('bank-a'), '00000001');

  it('a payment not yet authorised is cancelled at once (204); an executed one is 405 CANCELLATION_INVALID', async () => {
    const bank = client('bank-a');
    const first = await bank.initiatePayment('domestic-credit-transfers', paymentFrom(alice, 'BGN'), {
      approach: 'REDIRECT',
      redirectUri: CALLBACK,
    });
    expect(
      await bank.cancelPayment('domestic-credit-transfers', first.paymentId, { redirectUri: CALLBACK }),
    ).toEqual({
      status: 'cancelled',
    });
    expect(await bank.getPaymentStatus('domestic-credit-transfers', first.paymentId)).toBe('CANC');

    const second = await bank.initiatePayment('domestic-credit-transfers', paymentFrom(alice, 'BGN'), {
      approach: 'REDIRECT',
      redirectUri: CALLBACK,
    });
    await driveSca(second.scaRedirectUrl!, {
      psuId: 'alice',
      password: 'sandbox-alice',
      decision: 'approve',
    });
    const refused = await bank
      .cancelPayment('domestic-credit-transfers', second.paymentId, { redirectUri: CALLBACK })
      .catch((error: unknown) => error);
    expect(xs2aErrorTypeOf(refused)).toBe(Xs2aErrorType.StatusInvalid);
  });
});

/**
 * The gateway's cancellation of a single payment (decision 0070), over HTTP as an integrator meets it:
 * `DELETE /api/8/payment/{code}` with the customer's credential. Bank A cancels at once (200 CANCELLED);
 * Bank R wants the user to authorise the cancellation on its page (202 with `scaRedirectUrl`), and the
 * bank's own records witness the outcome (CANC, no debit), as does the signed hook call.
 */
describe('DELETE /api/8/payment/{code} (the gateway)', () => {
  let platform: TestPlatform;
  let hooks: Receiver;
  let customer: Customer & { hookHash: string };

  beforeAll(async () => {
    platform = await startTestPlatform();
    hooks = await startReceiver();
    const enrolled = await newCustomer(platform, 'Cancelling agent');
    const hook = await enrolled.call<{ hookHash: string }>('POST', '/api/8/createhook', {
      headers: enrolled.headers,
      body: { url: hooks.url },
    });
    expect(hook.status).toBe(201);
    customer = { ...enrolled, hookHash: hook.body.hookHash };
  });
  afterAll(async () => {
    await platform?.stop();
    await hooks?.stop();
  });

  const DEBTORS = {
    'bank-a': { iban: ibanOf(definition('bank-a'), '00000001'), currency: 'BGN', psuId: 'alice' },
    'bank-r': { iban: ibanOf(definition('bank-r'), '00000000001'), currency: 'EUR', psuId: 'rita' },
  } as const;
  type Bank = keyof typeof DEBTORS;
  const psuOf = (bank: Bank) => ({
    psuId: DEBTORS[bank].psuId,
    password: `sandbox-${DEBTORS[bank].psuId}`,
  });

  async function directPayment(bank: Bank, by: Customer = customer) {
    const created = await by.call<{ code: string; callbackState: string }>('POST', '/api/8/payment/direct', {
      headers: by.headers,
      body: {
        bankHash: bankHashOf(bank),
        debtorIban: DEBTORS[bank].iban,
        ...CREDITOR,
        amount: '3.10',
        currency: DEBTORS[bank].currency,
        ...(by === customer ? { hookHash: customer.hookHash } : {}),
      },
    });
    expect(created.status).toBe(201);
    return created.body;
  }

  /** A payment confirmed with the redirect approach: at the bank (RCVD), the user not yet at its page. */
  async function awaitingSca(bank: Bank) {
    const created = await directPayment(bank);
    const confirmed = await confirm(customer, created.code, { scaMethod: 'REDIRECT' });
    expect(confirmed.body).toMatchObject({ state: 'AWAITING_SCA' });
    const bankPayment = [...bankOf(platform, bank).payments.values()].at(-1)!;
    return { ...created, scaRedirectUrl: confirmed.body.sca!.redirectUrl!, bankPayment };
  }

  const cancel = (code: string, by: Customer = customer, headers: Record<string, string> = by.headers) =>
    by.call<PaymentCancellationView & { error?: { code: string } }>('DELETE', `/api/8/payment/${code}`, {
      headers: { ...headers, 'user-agent': 'Cancellation test' },
    });

  it('at a bank that cancels at once (Bank A): 200 CANCELLED, CANC at the bank, no debit, the hook called; again 409', async () => {
    const payment = await awaitingSca('bank-a');
    const cancelled = await cancel(payment.code);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      code: payment.code,
      cancellation: 'CANCELLED',
      scaRedirectUrl: null,
      state: 'CANCELLED',
      status: 'FAILED',
      bankTransactionStatus: 'CANC',
    });
    expect(payment.bankPayment.transactionStatus).toBe('CANC');
    expect(
      bankOf(platform, 'bank-a')
        .ledger.debits(DEBTORS['bank-a'].iban)
        .filter((debit) => debit.paymentId === payment.bankPayment.paymentId),
    ).toEqual([]);
    expect((await paymentStatus(customer, payment.code)).body).toMatchObject({ state: 'CANCELLED' });
    const event = await verifiedPaymentHook(platform, hooks, payment.callbackState);
    expect(event).toMatchObject({ code: payment.code, status: 'FAILED', paymentState: 'CANCELLED' });

    const again = await cancel(payment.code);
    expect(again.status).toBe(409);
    expect(again.body.error?.code).toBe('payment_not_cancellable');
  });

  it('before the confirmation: 200 CANCELLED without a bank call; confirming it later moves nothing', async () => {
    const created = await directPayment('bank-a');
    const before = bankOf(platform, 'bank-a').payments.size;
    const cancelled = await cancel(created.code);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      state: 'CANCELLED',
      status: 'FAILED',
      bankTransactionStatus: null,
    });
    const confirmed = await confirm(customer, created.code, { scaMethod: 'REDIRECT' });
    expect(confirmed.body).toMatchObject({ state: 'CANCELLED', sca: null });
    expect(bankOf(platform, 'bank-a').payments.size).toBe(before);
  });

  it('at a bank that wants the cancellation authorised (Bank R), approved: 202 with the bank’s page, then CANCELLED, CANC, no debit', async () => {
    const payment = await awaitingSca('bank-r');
    const asked = await cancel(payment.code);
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({
      cancellation: 'AWAITING_SCA',
      state: 'AWAITING_SCA',
      status: 'WAITING',
    });
    expect(asked.body.scaRedirectUrl).toContain('/bank-r/sca/payment-cancellations/');
    // Asked again while the user is on the page: the same page, nothing new at the bank.
    const repeated = await cancel(payment.code);
    expect(repeated.status).toBe(202);
    expect(repeated.body.scaRedirectUrl).toBe(asked.body.scaRedirectUrl);
    expect(payment.bankPayment.cancellations?.size).toBe(1);

    const { returnForm, submitted } = await driveSca(asked.body.scaRedirectUrl!, {
      ...psuOf('bank-r'),
      decision: 'approve',
      submit: true,
    });
    // Back to the payment's own callback, marked as the cancellation's.
    expect(returnForm.action).toContain(`/state/${payment.callbackState}?sca=cancellation`);
    expect(submitted!.status).toBeLessThan(400);
    const done = await paymentOnceSettled(customer, payment.code);
    expect(done).toMatchObject({ state: 'CANCELLED', status: 'FAILED', bankTransactionStatus: 'CANC' });
    expect(payment.bankPayment.transactionStatus).toBe('CANC');
    expect(
      bankOf(platform, 'bank-r')
        .ledger.debits(DEBTORS['bank-r'].iban)
        .filter((debit) => debit.paymentId === payment.bankPayment.paymentId),
    ).toEqual([]);
    const event = await verifiedPaymentHook(platform, hooks, payment.callbackState);
    expect(event).toMatchObject({
      code: payment.code,
      paymentState: 'CANCELLED',
      bankTransactionStatus: 'CANC',
    });
  });

  it('at Bank R, the user keeps the payment: it stays AWAITING_SCA, and its own SCA still executes it', async () => {
    const payment = await awaitingSca('bank-r');
    const asked = await cancel(payment.code);
    expect(asked.status).toBe(202);
    await driveSca(asked.body.scaRedirectUrl!, { ...psuOf('bank-r'), decision: 'deny', submit: true });
    const [authorisation] = [...payment.bankPayment.cancellations!.values()];
    expect(authorisation!.scaStatus).toBe('failed');
    // The refusal was read from the bank: a new request starts a new cancellation authorisation.
    const again = await eventually(
      async () => {
        const answer = await cancel(payment.code);
        return answer.body.scaRedirectUrl !== asked.body.scaRedirectUrl ? answer : undefined;
      },
      15_000,
      'a new cancellation authorisation',
    );
    expect(again.status).toBe(202);
    expect((await paymentStatus(customer, payment.code)).body).toMatchObject({
      state: 'AWAITING_SCA',
      status: 'WAITING',
      bankTransactionStatus: 'RCVD',
    });

    await driveSca(payment.scaRedirectUrl, { ...psuOf('bank-r'), decision: 'approve', submit: true });
    expect(await paymentOnceSettled(customer, payment.code)).toMatchObject({
      state: 'EXECUTED',
      status: 'CONFIRMED',
    });
    expect(
      bankOf(platform, 'bank-r')
        .ledger.debits(DEBTORS['bank-r'].iban)
        .filter((debit) => debit.paymentId === payment.bankPayment.paymentId),
    ).toHaveLength(1);
  });

  it('an executed payment is 409 payment_not_cancellable, and stays executed', async () => {
    const payment = await awaitingSca('bank-a');
    await driveSca(payment.scaRedirectUrl, { ...psuOf('bank-a'), decision: 'approve', submit: true });
    expect(await paymentOnceSettled(customer, payment.code)).toMatchObject({ state: 'EXECUTED' });
    const refused = await cancel(payment.code);
    expect(refused.status).toBe(409);
    expect(refused.body.error?.code).toBe('payment_not_cancellable');
    expect(payment.bankPayment.transactionStatus).toBe('ACSC');
  });

  it('another user’s payment and an unknown code are 404; without the credential 401, before anything moves', async () => {
    const payment = await awaitingSca('bank-a');
    const other = await newCustomer(platform, 'Other agent');
    const foreign = await cancel(payment.code, other);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error?.code).toBe('not_found');
    expect(JSON.stringify(foreign.body)).not.toContain(customer.user.userId);
    expect((await cancel(`pay_${'0'.repeat(32)}`)).status).toBe(404);
    const anonymous = await cancel(payment.code, customer, {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error?.code).toBe('unauthorized');
    const forged = await cancel(payment.code, customer, { 'x-user-hash': `user_${'A'.repeat(43)}` });
    expect(forged.status).toBe(401);
    expect(payment.bankPayment.transactionStatus).toBe('RCVD');
    expect((await paymentStatus(customer, payment.code)).body).toMatchObject({ state: 'AWAITING_SCA' });
  });
});
