import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obScaSecrets } from '../../db/schema/openbanking-sca-secrets.ts';
import { bankHashOf } from '../../domain/openbanking/bank-directory.ts';
import { ibanOf, SANDBOX_BANKS } from '../../sandbox/openbanking/catalogue.ts';
import { driveSca } from '../../sandbox/openbanking/sca-driver.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { openedHistoryText } from '../support/workflow-history.ts';
import { type Customer, consentOnceSettled, newCustomer, startConsent } from './consent-helpers.ts';
import {
  bankOf,
  CREDITOR,
  confirm,
  paymentOnceSettled,
  type Receiver,
  smsCodeFor,
} from './payment-helpers.ts';

/**
 * The Berlin Group SCA approaches as other banks run them (decision 0061), end to end over HTTP against
 * the sandbox banks of each kind: Bank R (redirect, the authorisation started explicitly by the TPP:
 * `startAuthorisation` → POST …/authorisations → `scaRedirect`) and Bank D (decoupled, started with
 * `startAuthorisationWithPsuIdentification`, the PSU approving in the bank's app). A consent and a
 * payment pass at each; the bank's own records witness that the gateway followed the bank's links.
 * Bank E runs the embedded approach with explicit start and method selection: the user's password, the
 * chosen method and the one-time code reach the bank through PUT consent/{consentId}/sca.
 */

let platform: TestPlatform;
let hooks: Receiver;

beforeAll(async () => {
  platform = await startTestPlatform({ env: { OPENBANKING_DECOUPLED_POLL_INTERVAL: '200ms' } });
  hooks = await startReceiver();
});
afterAll(async () => {
  await platform?.stop();
  await hooks?.stop();
});

const definition = (code: string) => SANDBOX_BANKS.find((bank) => bank.code === code)!;

async function customerWithHook(): Promise<Customer & { hookHash: string }> {
  const customer = await newCustomer(platform, 'SCA approaches agent');
  const hook = await customer.call<{ hookHash: string }>('POST', '/api/8/createhook', {
    headers: customer.headers,
    body: { url: hooks.url },
  });
  expect(hook.status).toBe(201);
  return { ...customer, hookHash: hook.body.hookHash };
}

async function directPayment(customer: Customer & { hookHash: string }, bankCode: string, amount: string) {
  const created = await customer.call<{ code: string; callbackState: string }>(
    'POST',
    '/api/7/payment/direct',
    {
      headers: customer.headers,
      body: {
        bankHash: bankHashOf(bankCode),
        debtorIban: ibanOf(definition(bankCode), '00000000001'),
        ...CREDITOR,
        amount,
        currency: 'EUR',
        hookHash: customer.hookHash,
      },
    },
  );
  expect(created.status).toBe(201);
  return created.body;
}

describe('a redirect bank that wants the authorisation started explicitly (Bank R)', () => {
  it('consent: the gateway POSTs startAuthorisation and hands out the SCA page; approved: ACTIVE', async () => {
    const customer = await newCustomer(platform);
    const started = await startConsent(customer, { bankHash: bankHashOf('bank-r') });
    expect(started.scaRedirectUrl).toContain('/bank-r/sca/');
    const bankConsent = [...bankOf(platform, 'bank-r').consents.values()].at(-1)!;
    expect(bankConsent.authorisationStarted).toBe(true);
    await driveSca(started.scaRedirectUrl, {
      psuId: 'rita',
      password: 'sandbox-rita',
      decision: 'approve',
      submit: true,
    });
    expect(await consentOnceSettled(customer, started.consentId)).toMatchObject({
      status: 'ACTIVE',
      accounts: 1,
    });
  });

  it('payment: started explicitly, authenticated on the page: CONFIRMED with one debit', async () => {
    const customer = await customerWithHook();
    const iban = ibanOf(definition('bank-r'), '00000000001');
    const ledger = bankOf(platform, 'bank-r').ledger;
    const created = await directPayment(customer, 'bank-r', '4.20');
    const confirmed = await confirm(customer, created.code, { scaMethod: 'REDIRECT' }, 'POST', 7);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ state: 'AWAITING_SCA', sca: { method: 'REDIRECT' } });
    const redirectUrl = confirmed.body.sca!.redirectUrl!;
    expect(redirectUrl).toContain('/bank-r/sca/payments/');
    const bankPayment = [...bankOf(platform, 'bank-r').payments.values()].at(-1)!;
    // One authorisation: the one the gateway started on the bank's link.
    expect(bankPayment.authorisations.size).toBe(1);
    await driveSca(redirectUrl, {
      psuId: 'rita',
      password: 'sandbox-rita',
      decision: 'approve',
      submit: true,
    });
    expect(await paymentOnceSettled(customer, created.code)).toMatchObject({ status: 'CONFIRMED' });
    expect(ledger.debits(iban).filter((debit) => debit.paymentId === bankPayment.paymentId)).toHaveLength(1);
  });
});

describe('a decoupled bank that names the PSU when the authorisation starts (Bank D)', () => {
  const inApp = (path: string) =>
    fetch(`${platform.sandbox.banks.url}/bank-d/sandbox/${path}`, { method: 'POST' });

  it('consent: started with PSU-ID, approved in the app: ACTIVE with the account', async () => {
    const customer = await newCustomer(platform);
    const started = await customer.call<{ consentId: string; psuMessage: string | null }>(
      'POST',
      '/api/8/consent',
      { headers: customer.headers, body: { bankHash: bankHashOf('bank-d'), psuId: 'dora' } },
    );
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ scaRedirectUrl: null, scaMethod: 'DECOUPLED' });
    expect(started.body.psuMessage).toContain('Sandbox Bank D app');
    const bankConsent = [...bankOf(platform, 'bank-d').consents.values()].at(-1)!;
    expect(bankConsent).toMatchObject({ decoupledPsuId: 'dora', authorisationStarted: true });
    expect((await inApp(`consents/${bankConsent.consentId}/decoupled/approve`)).status).toBe(204);
    expect(await consentOnceSettled(customer, started.body.consentId)).toMatchObject({
      status: 'ACTIVE',
      accounts: 1,
    });
  });

  it('consent: an unknown PSU at the start of the authorisation is the bank refusing (502)', async () => {
    const customer = await newCustomer(platform);
    const refused = await customer.call('POST', '/api/8/consent', {
      headers: customer.headers,
      body: { bankHash: bankHashOf('bank-d'), psuId: 'nobody' },
    });
    expect(refused.status).toBe(502);
    expect(refused.body.error?.code).toBe('bank_refused');
  });

  it('payment: approved in the app while the gateway polls: CONFIRMED with one debit', async () => {
    const customer = await customerWithHook();
    const created = await directPayment(customer, 'bank-d', '2.75');
    const confirmed = await confirm(customer, created.code, { scaMethod: 'DECOUPLED' }, 'POST', 7);
    expect(confirmed.body).toMatchObject({ state: 'AWAITING_SCA', sca: { method: 'DECOUPLED' } });
    const bankPayment = [...bankOf(platform, 'bank-d').payments.values()].at(-1)!;
    expect((await inApp(`payments/${bankPayment.paymentId}/decoupled/approve`)).status).toBe(204);
    expect(await paymentOnceSettled(customer, created.code)).toMatchObject({ status: 'CONFIRMED' });
    expect(
      bankOf(platform, 'bank-d')
        .ledger.debits(ibanOf(definition('bank-d'), '00000000001'))
        .filter((debit) => debit.paymentId === bankPayment.paymentId),
    ).toHaveLength(1);
  });
});

/** Runs `call` with held SCA steps expiring at once: each reaches the bank too late (decision 0068). */
async function withoutTimeToHold<T>(call: () => Promise<T>): Promise<T> {
  const ttl = platform.config.OPENBANKING_SCA_SECRET_TTL;
  platform.config.OPENBANKING_SCA_SECRET_TTL = 0;
  try {
    return await call();
  } finally {
    platform.config.OPENBANKING_SCA_SECRET_TTL = ttl;
  }
}

/** Bank E in a maintenance window (its XS2A answers 503 with Retry-After), or back. */
async function bankEMaintenance(on: boolean) {
  const now = Date.now();
  const notices = [
    {
      startsAt: new Date(now - 60_000).toISOString(),
      endsAt: new Date(now + 3_600_000).toISOString(),
      message: 'Test',
    },
  ];
  const answer = await fetch(`${platform.sandbox.banks.url}/bank-e/sandbox/maintenance`, {
    method: on ? 'PUT' : 'DELETE',
    ...(on ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ notices }) } : {}),
  });
  expect(answer.ok).toBe(true);
}

/** The entries of ob_sca_secrets a process still has. */
const heldSteps = async (subject: string) =>
  (await platform.db.select().from(obScaSecrets).where(eq(obScaSecrets.subject, subject))).length;

interface EmbeddedView {
  scaStatus: string;
  next: 'credentials' | 'method' | 'code' | null;
  scaMethods: { authenticationMethodId: string; authenticationType: string }[];
  challengeData: { additionalInformation?: string } | null;
  error?: { code: string };
}

describe('an embedded bank with explicit start and method selection (Bank E)', () => {
  it('consent: password, method and code relayed step by step: ACTIVE; none of them in the engine, even opened', async () => {
    const customer = await newCustomer(platform);
    const started = await customer.call<{
      consentId: string;
      scaMethod: string;
      scaRedirectUrl: string | null;
    }>('POST', '/api/8/consent', { headers: customer.headers, body: { bankHash: bankHashOf('bank-e') } });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ scaMethod: 'EMBEDDED', scaRedirectUrl: null });
    const { consentId } = started.body;
    const step = (body: Record<string, unknown>) =>
      customer.call<EmbeddedView>('PUT', `/api/8/consent/${consentId}/sca`, {
        headers: customer.headers,
        body,
      });

    // A step out of turn, and a wrong password, change nothing at the bank.
    expect((await step({ scaAuthenticationData: '123456' })).body.error?.code).toBe(
      'consent_not_awaiting_sca',
    );
    const wrong = await step({ psuId: 'emma', password: 'not-the-password' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error?.code).toBe('psu_credentials_invalid');
    const other = await newCustomer(platform);
    expect(
      (
        await other.call('PUT', `/api/8/consent/${consentId}/sca`, {
          headers: other.headers,
          body: { psuId: 'emma', password: 'sandbox-emma' },
        })
      ).status,
    ).toBe(404);

    // A step that does not reach the bank within OPENBANKING_SCA_SECRET_TTL is not relayed: it is
    // given again, and then goes through (decision 0068).
    const late = await withoutTimeToHold(() => step({ psuId: 'emma', password: 'sandbox-emma' }));
    expect(late.status).toBe(409);
    expect(late.body.error?.code).toBe('sca_step_expired');
    expect(await heldSteps(`consent:${consentId}`)).toBe(0);

    const authenticated = await step({ psuId: 'emma', password: 'sandbox-emma' });
    expect(authenticated.status).toBe(200);
    expect(authenticated.body).toMatchObject({ scaStatus: 'psuAuthenticated', next: 'method' });
    expect(authenticated.body.scaMethods.map((method) => method.authenticationMethodId)).toEqual([
      'sms',
      'push',
    ]);
    const chosen = await step({ authenticationMethodId: 'push' });
    expect(chosen.body).toMatchObject({ scaStatus: 'scaMethodSelected', next: 'code' });
    expect(chosen.body.challengeData?.additionalInformation).toContain('app');

    const bankConsent = [...bankOf(platform, 'bank-e').consents.values()].at(-1)!;
    const app = await fetch(
      `${platform.sandbox.banks.url}/bank-e/sandbox/consents/${bankConsent.consentId}/app-code`,
    );
    const { code } = (await app.json()) as { code: string };
    // The bank does not answer: the attempt that took the code fails at once (no later attempt could
    // relay it), the code is no longer held, and the same step goes through once the bank is back.
    await bankEMaintenance(true);
    const unanswered = await step({ scaAuthenticationData: code }).finally(() => bankEMaintenance(false));
    expect(unanswered.status).toBe(503);
    expect(unanswered.body.error?.code).toBe('bank_unavailable');
    expect(await heldSteps(`consent:${consentId}`)).toBe(0);
    const wrongCode = await step({ scaAuthenticationData: code === '000000' ? '111111' : '000000' });
    expect(wrongCode.body.error?.code).toBe('psu_credentials_invalid');
    const done = await step({ scaAuthenticationData: code });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ scaStatus: 'finalised', next: null });
    expect(await consentOnceSettled(customer, consentId)).toMatchObject({ status: 'ACTIVE', accounts: 1 });

    // The user id, password and code never entered the engine (decision 0068): not even the history
    // opened with the payload codec's keys holds them; the Updates named them by reference only.
    const opened = await openedHistoryText(platform.client, platform.config, `ob-consent-${consentId}`);
    expect(opened).toContain('scaMethodSelected');
    expect(opened).toContain('secretRef');
    for (const secret of ['sandbox-emma', 'not-the-password', '"emma"', `"${code}"`, 'scaAuthenticationData'])
      expect(opened).not.toContain(secret);
    // Each held step was deleted as the bank was called.
    expect(await heldSteps(`consent:${consentId}`)).toBe(0);
  });

  it('payment: the one-time code the bank texted, relayed by verify-sms: CONFIRMED with one debit; the code never in the engine', async () => {
    const customer = await customerWithHook();
    const created = await directPayment(customer, 'bank-e', '1.95');
    const sentAfter = Date.now();
    const confirmed = await confirm(customer, created.code, { scaMethod: 'EMBEDDED_SMS_OTP' }, 'POST', 7);
    expect(confirmed.body).toMatchObject({ state: 'AWAITING_SCA', sca: { method: 'EMBEDDED_SMS_OTP' } });
    const smsCode = await smsCodeFor(platform, 'emma', sentAfter, 'bank-e');
    const verify = () =>
      customer.call<{ error?: { code: string } }>('PUT', '/api/8/payment/verify-sms', {
        headers: { ...customer.headers, 'user-agent': 'Payment test' },
        body: { code: created.code, smsCode },
      });
    // A code that does not reach the bank in time is sent again (decision 0068).
    const late = await withoutTimeToHold(verify);
    expect(late.status).toBe(409);
    expect(late.body.error?.code).toBe('sca_step_expired');
    const verified = await verify();
    expect(verified.status).toBe(200);
    expect(await paymentOnceSettled(customer, created.code)).toMatchObject({ status: 'CONFIRMED' });
    const opened = await openedHistoryText(platform.client, platform.config, `ob-payment-${created.code}`);
    expect(opened).toContain('secretRef');
    expect(opened).not.toContain(`"${smsCode}"`);
    expect(opened).not.toContain('smsCode');
    expect(await heldSteps(`payment:${created.code}`)).toBe(0);
    const bankPayment = [...bankOf(platform, 'bank-e').payments.values()].at(-1)!;
    expect(
      bankOf(platform, 'bank-e')
        .ledger.debits(ibanOf(definition('bank-e'), '00000000001'))
        .filter((debit) => debit.paymentId === bankPayment.paymentId),
    ).toHaveLength(1);
  });
});
