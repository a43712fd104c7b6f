import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { launchChromium } from '../support/browser.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import {
  bankOf,
  confirm,
  createIbanPayment,
  type PayingCustomer,
  payingCustomer,
  paymentOnceSettled,
  type Receiver,
  verifiedPaymentHook,
} from './payment-helpers.ts';

/**
 * A payment authenticated on the bank's page in a real headless Chromium: the customer's browser goes
 * to `sca.redirectUrl`, logs in and approves, and comes back through the gateway's
 * `/redirect/{app}/state/{state}` to the hook's redirectUrl with the payment's `state`; the payment is
 * CONFIRMED, debited once, and the hook's JWS verifies with the published JWKS.
 */

let browser: Browser;
let platform: TestPlatform;
let hooks: Receiver;
let landing: Receiver;
let alice: PayingCustomer;
let redirectUrl: string;

beforeAll(async () => {
  browser = await launchChromium();
  platform = await startTestPlatform();
  hooks = await startReceiver();
  landing = await startReceiver(() => ({
    status: 200,
    body: 'Payment done',
    headers: { 'content-type': 'text/html' },
  }));
  alice = await payingCustomer(platform, hooks, 'alice', 'Browser agent');
  redirectUrl = `${landing.url}/paid`;
  const redirect = await alice.call(
    'PUT',
    `/api/8/redirect?hookhash=${encodeURIComponent(alice.hookHash)}&redirectUrl=${encodeURIComponent(redirectUrl)}`,
    { headers: alice.headers },
  );
  expect(redirect.status).toBe(200);
});
afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  await hooks?.stop();
  await landing?.stop();
});

describe('a payment authenticated in the browser (redirect SCA)', () => {
  it('log in, approve, back on the redirect URL with state: CONFIRMED, one debit, signed hook', async () => {
    const account = alice.accounts[0]!;
    const ledger = bankOf(platform).ledger;
    const before = ledger.balanceOf(account.iban)!;
    const created = await createIbanPayment(alice, { amount: '7.25' });
    const confirmed = await confirm(alice, created.code, { scaMethod: 'REDIRECT' });
    expect(confirmed.body.sca?.redirectUrl).toBeTruthy();

    const page = await browser.newPage();
    try {
      await page.goto(confirmed.body.sca!.redirectUrl!);
      expect(await page.textContent('body')).toContain('7.25');
      await page.getByLabel('User ID').fill('alice');
      await page.getByLabel('Password').fill('sandbox-alice');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.waitForURL((url) => url.toString().startsWith(redirectUrl), { timeout: 30_000 });
      expect(new URL(page.url()).searchParams.get('state')).toBe(created.callbackState);
      expect(await page.textContent('body')).toContain('Payment done');
    } finally {
      await page.close();
    }

    expect(await paymentOnceSettled(alice, created.code)).toMatchObject({
      status: 'CONFIRMED',
      state: 'EXECUTED',
    });
    expect(ledger.balanceOf(account.iban)).toBe(before - 725);
    const event = await verifiedPaymentHook(platform, hooks, created.callbackState);
    expect(event).toMatchObject({ code: created.code, status: 'CONFIRMED', amount: '7.25' });
  });
});
