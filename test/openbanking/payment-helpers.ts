import { compactVerify, createRemoteJWKSet } from 'jose';
import { expect } from 'vitest';
import type { PaymentFinishedEvent } from '../../activities/openbanking/payment.ts';
import type { PaymentView as PaymentRecord } from '../../application/openbanking/index.ts';
import { hookCallJws } from '../../domain/openbanking/hook-events.ts';
import type { SandboxBank } from '../../sandbox/openbanking/bank.ts';
import type { ReceivedRequest, startReceiver } from '../../sandbox/webhook-receiver.ts';
import { eventually, type TestPlatform } from '../support/platform.ts';
import { addAccounts, bankHash, type Customer, newCustomer } from './consent-helpers.ts';

/**
 * Helpers of the payment tests: a customer who added the sandbox user's accounts at a bank (so
 * payments may be made from them), payments created and confirmed over HTTP, the bank's ledger (the
 * witness of every debit), the bank's SMS read at the sandbox carrier, and the signed hook call.
 */

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

export interface PayingCustomer extends Customer {
  hookHash: string;
  /** The sandbox user's accounts as added (ibanId, iban, currency). */
  accounts: { ibanId: string; iban: string; currency: string }[];
}

export const CREDITOR = { creditorIban: 'BG80BNBG96611020345678', creditorName: 'Sofia Water' };

/** An agent's customer with a hook on `hooks`, who added `psuId`'s accounts at bank-a. */
export async function payingCustomer(
  platform: TestPlatform,
  hooks: Receiver,
  psuId = 'alice',
  name = 'Paying agent',
): Promise<PayingCustomer> {
  const customer = await newCustomer(platform, name);
  const hook = await customer.call<{ hookHash: string }>('POST', '/api/8/createhook', {
    headers: customer.headers,
    body: { url: hooks.url },
  });
  expect(hook.status).toBe(201);
  await addAccounts(customer, psuId, { bankHash: bankHash('bank-a') });
  const ibans = await customer.call<{ ibans: { ibanId: string; iban: string; currency: string }[] }>(
    'GET',
    '/api/8/ibans',
    { headers: customer.headers },
  );
  return { ...customer, hookHash: hook.body.hookHash, accounts: ibans.body.ibans };
}

export type Created = PaymentRecord & { callbackState: string; authorized: boolean | null };

/** POST payment/iban from the customer's first account (or `ibanId`). */
export async function createIbanPayment(
  customer: PayingCustomer,
  body: Record<string, unknown> = {},
  version = 8,
): Promise<Created> {
  const account = customer.accounts[0]!;
  const created = await customer.call<Created>('POST', `/api/${version}/payment/iban`, {
    headers: customer.headers,
    body: {
      ibanId: account.ibanId,
      ...CREDITOR,
      amount: '12.50',
      currency: account.currency,
      hookHash: customer.hookHash,
      ...body,
    },
  });
  if (created.status !== 201)
    throw new Error(`payment/iban answered ${created.status} ${JSON.stringify(created.body)}`);
  return created.body;
}

export async function confirm(
  customer: Customer,
  code: string,
  body: Record<string, unknown> = {},
  method: 'POST' | 'PUT' = 'POST',
  version = 8,
) {
  return customer.call<PaymentRecord & { error?: { code: string; message: string } }>(
    method,
    `/api/${version}/payment`,
    { headers: { ...customer.headers, 'user-agent': 'Payment test' }, body: { code, ...body } },
  );
}

export async function paymentStatus(customer: Customer, code: string) {
  return customer.call<PaymentRecord>('GET', `/api/8/payment/status?code=${code}`, {
    headers: customer.headers,
  });
}

/** The payment once it left WAITING (or satisfies `done`). */
export function paymentOnceSettled(
  customer: Customer,
  code: string,
  done: (payment: PaymentRecord) => boolean = (payment) => payment.status !== 'WAITING',
): Promise<PaymentRecord> {
  return eventually(
    async () => {
      const { body } = await paymentStatus(customer, code);
      return done(body) ? body : undefined;
    },
    30_000,
    `payment ${code} to settle`,
  );
}

export const bankOf = (platform: TestPlatform, code = 'bank-a'): SandboxBank =>
  platform.sandbox.banks.banks.get(code)!;

/** The one-time code the bank texted to its PSU for the payment (read at the sandbox SMS carrier). */
export function smsCodeFor(platform: TestPlatform, psuId: string, after: number, code = 'bank-a') {
  const phone = bankOf(platform, code).psus.get(psuId)!.phone.replace(/^\+/, '');
  return eventually(
    async () => {
      const sms = platform.sandbox.smpp.submitted.find(
        (message) => message.destination.replace(/^\+/, '') === phone && message.at.getTime() >= after,
      );
      return sms ? /is (\d{6})$/.exec(sms.text)?.[1] : undefined;
    },
    15_000,
    `the bank's SMS to ${psuId}`,
  );
}

/** The payment's hook call (by its state), its JWS verified with the published key set. */
export async function verifiedPaymentHook(platform: TestPlatform, hooks: Receiver, state: string) {
  const request = await eventually<ReceivedRequest>(
    async () =>
      hooks.requests.find(
        (candidate) => new URL(candidate.path, hooks.url).searchParams.get('state') === state,
      ),
    30_000,
    'the payment hook call',
  );
  // The JSON envelope carrying the JWS (decision 0064).
  expect(request.headers['content-type']).toBe('application/json');
  const jwks = createRemoteJWKSet(new URL(`${platform.openBanking.url}/api/6/.well-known/jwks.json`));
  const { payload } = await compactVerify(hookCallJws(request.body), jwks);
  const event = JSON.parse(new TextDecoder().decode(payload)) as PaymentFinishedEvent;
  expect(event.type).toBe('payment.finished');
  expect(event.state).toBe(state);
  return event;
}
