import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { workerProcesses } from '../support/worker-process.ts';
import {
  bankOf,
  confirm,
  createIbanPayment,
  payingCustomer,
  paymentOnceSettled,
  type Receiver,
  verifiedPaymentHook,
} from './payment-helpers.ts';

/**
 * A payment against a real crash: the worker runs as its own OS process and is killed with SIGKILL while
 * the payment waits for the user's approval in the bank's app; the user approves while no worker runs;
 * a new worker takes over. The payment ends CONFIRMED exactly once: one debit in the bank's ledger, one
 * hook call. (The takeover costs about 10 s: the sticky queue's schedule-to-start timeout, as in a real crash.)
 */

let platform: TestPlatform;
let hooks: Receiver;
const workers = workerProcesses(() => platform.env);
/** A duplicate hook call would arrive within this (webhook retries are 200 ms here). */
const QUIET_MS = 1_500;

beforeAll(async () => {
  platform = await startTestPlatform({
    worker: 'none',
    env: { OPENBANKING_DECOUPLED_POLL_INTERVAL: '500ms' },
  });
  hooks = await startReceiver();
});
afterAll(async () => {
  await workers.killAll();
  await platform?.stop();
  await hooks?.stop();
});

describe('a worker killed while a payment waits for the user', () => {
  it('the next worker finishes it once: CONFIRMED, one debit, one hook call', async () => {
    const first = await workers.start();
    const alice = await payingCustomer(platform, hooks);
    const account = alice.accounts[0]!;
    const ledger = bankOf(platform).ledger;
    const before = ledger.balanceOf(account.iban)!;
    const payment = await createIbanPayment(alice, { amount: '9.99' });
    const confirmed = await confirm(alice, payment.code, { scaMethod: 'DECOUPLED' });
    expect(confirmed.body).toMatchObject({ state: 'AWAITING_SCA' });

    await first.kill();
    const bankPayment = [...bankOf(platform).payments.values()].at(-1)!;
    const approved = await fetch(
      `${platform.sandbox.banks.url}/bank-a/sandbox/payments/${bankPayment.paymentId}/decoupled/approve`,
      { method: 'POST' },
    );
    expect(approved.status).toBe(204);
    const second = await workers.start();
    expect(await paymentOnceSettled(alice, payment.code)).toMatchObject({
      status: 'CONFIRMED',
      state: 'EXECUTED',
    });
    await verifiedPaymentHook(platform, hooks, payment.callbackState);
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));

    expect(
      ledger.debits(account.iban).filter((debit) => debit.paymentId === bankPayment.paymentId),
    ).toHaveLength(1);
    expect(ledger.balanceOf(account.iban)).toBe(before - 999);
    const calls = hooks.requests.filter(
      (request) => new URL(request.path, hooks.url).searchParams.get('state') === payment.callbackState,
    );
    expect(calls).toHaveLength(1);
    expect(
      [...bankOf(platform).payments.values()].filter(
        (p) => p.request.endToEndIdentification === payment.code.slice(4, 39),
      ),
    ).toHaveLength(1);
    await second.kill();
  });
});
