import { compactVerify, createRemoteJWKSet } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsentFinishedEvent } from '../../domain/openbanking/consents.ts';
import { hookCallJws } from '../../domain/openbanking/hook-events.ts';
import { type ReceivedRequest, startReceiver } from '../../sandbox/webhook-receiver.ts';
import { launchChromium } from '../support/browser.ts';
import { enrolUser, openBankingClient } from '../support/openbanking-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { bankHash } from './consent-helpers.ts';

/**
 * The consent + SCA flow end to end in a real headless Chromium, the way an integrator and their customer
 * meet it: agent → customer (signup) → user token → hook (+ redirect URL) → POST consent → the bank's SCA
 * page in the browser → approve / deny / walk away → the bank sends the browser to the gateway's callback →
 * accounts readable, the hook called with `state` and a JWS verifiable with the published JWKS, and the
 * browser on the hook's redirectUrl.
 */

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

let browser: Browser;
let hooks: Receiver;
let landing: Receiver;

beforeAll(async () => {
  browser = await launchChromium();
  hooks = await startReceiver();
  landing = await startReceiver(() => ({
    status: 200,
    body: 'Welcome back',
    headers: { 'content-type': 'text/html' },
  }));
});
afterAll(async () => {
  await browser?.close();
  await hooks?.stop();
  await landing?.stop();
});

/** An agent's customer with a user token, a hook on the local receiver and a redirect URL. */
async function integrator(platform: TestPlatform) {
  const call = openBankingClient(platform.openBanking.url);
  const agent = await platform.openBanking.createAgent('Browser agent');
  const user = await enrolUser(call, agent.agentHash);
  const token = await call<{ token: string }>('POST', '/api/8/usertoken', {
    headers: { 'x-user-hash': user.userHash },
  });
  expect(token.status).toBe(200);
  const auth = { authorization: `Bearer ${token.body.token}` };
  const hook = await call<{ hookHash: string }>('POST', '/api/8/createhook', {
    headers: auth,
    body: { url: hooks.url },
  });
  expect(hook.status).toBe(201);
  const redirectUrl = `${landing.url.replace('/hooks', '/done')}`;
  const redirect = await call(
    'PUT',
    `/api/8/redirect?hookhash=${encodeURIComponent(hook.body.hookHash)}&redirectUrl=${encodeURIComponent(redirectUrl)}`,
    { headers: auth },
  );
  expect(redirect.status).toBe(200);
  return { call, auth, hookHash: hook.body.hookHash, redirectUrl };
}

/** The hook call of a consent (by its state), its JWS verified with the published key set. */
async function verifiedHookCall(platform: TestPlatform, state: string) {
  const request = await eventually<ReceivedRequest>(
    async () =>
      hooks.requests.find(
        (candidate) => new URL(candidate.path, hooks.url).searchParams.get('state') === state,
      ),
    30_000,
    'the hook call',
  );
  expect(request.method).toBe('POST');
  // The JSON envelope carrying the JWS (decision 0064).
  expect(request.headers['content-type']).toBe('application/json');
  const jwks = createRemoteJWKSet(new URL(`${platform.openBanking.url}/api/6/.well-known/jwks.json`));
  const { payload, protectedHeader } = await compactVerify(hookCallJws(request.body), jwks);
  expect(protectedHeader.alg).toBe('ES256');
  const event = JSON.parse(new TextDecoder().decode(payload)) as ConsentFinishedEvent;
  expect(event.state).toBe(state);
  return event;
}

async function startConsent(flow: Awaited<ReturnType<typeof integrator>>) {
  const started = await flow.call<{ consentId: string; state: string; scaRedirectUrl: string }>(
    'POST',
    '/api/8/consent',
    {
      headers: { ...flow.auth, 'user-agent': 'Chromium test' },
      body: { bankHash: bankHash('bank-a'), hookHash: flow.hookHash },
    },
  );
  expect(started.status).toBe(201);
  expect(started.body.scaRedirectUrl).toContain('/bank-a/sca/');
  return started.body;
}

type Started = Awaited<ReturnType<typeof startConsent>>;

/** The customer opens the bank's SCA page and logs in as the sandbox user alice. */
async function logInAtBank(page: Page, consent: Started) {
  await page.goto(consent.scaRedirectUrl);
  await page.getByLabel('User ID').fill('alice');
  await page.getByLabel('Password').fill('sandbox-alice');
  await page.getByRole('button', { name: 'Log in' }).click();
}

/** Approves or denies at the bank; the browser comes back through the gateway to the hook's redirect URL. */
async function decideAndReturn(
  page: Page,
  decision: 'Approve' | 'Deny',
  flow: Awaited<ReturnType<typeof integrator>>,
  consent: Started,
) {
  await page.getByRole('button', { name: decision }).click();
  await page.waitForURL((url) => url.toString().startsWith(flow.redirectUrl), { timeout: 30_000 });
  expect(new URL(page.url()).searchParams.get('state')).toBe(consent.state);
}

describe('with the default SCA timeout', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it('approve: accounts, balances and transactions readable, hook signed, browser on the redirect URL', async () => {
    const flow = await integrator(platform);
    const consent = await startConsent(flow);

    const page = await browser.newPage();
    try {
      await logInAtBank(page, consent);
      await decideAndReturn(page, 'Approve', flow, consent);
      expect(await page.textContent('body')).toContain('Welcome back');
    } finally {
      await page.close();
    }

    const event = await verifiedHookCall(platform, consent.state);
    expect(event).toMatchObject({
      type: 'consent.finished',
      consentId: consent.consentId,
      status: 'ACTIVE',
      bankStatus: 'valid',
      reason: null,
    });
    expect(event.accounts).toHaveLength(2);

    const ibans = await flow.call<{ ibans: { ibanId: string; iban: string; currency: string }[] }>(
      'GET',
      '/api/8/ibans',
      {
        headers: flow.auth,
      },
    );
    expect(ibans.body.ibans.map((account) => account.ibanId).sort()).toEqual(
      event.accounts.map((account) => account.ibanId).sort(),
    );
    const bgn = ibans.body.ibans.find((account) => account.currency === 'BGN')!;
    const balance = await flow.call<{ balances: unknown[] }>('GET', `/api/8/balance/${bgn.ibanId}`, {
      headers: flow.auth,
    });
    expect(balance.body.balances).toHaveLength(3);
    const transactions = await flow.call<{ booked: unknown[]; pending: unknown[] }>(
      'GET',
      `/api/8/transactions/${bgn.ibanId}`,
      { headers: flow.auth },
    );
    expect(transactions.body.booked.length + transactions.body.pending.length).toBe(40);
  });

  it('deny: REJECTED, the hook says so, the browser still lands on the redirect URL', async () => {
    const flow = await integrator(platform);
    const consent = await startConsent(flow);
    const page = await browser.newPage();
    try {
      await logInAtBank(page, consent);
      await decideAndReturn(page, 'Deny', flow, consent);
    } finally {
      await page.close();
    }
    const event = await verifiedHookCall(platform, consent.state);
    expect(event).toMatchObject({ status: 'REJECTED', bankStatus: 'rejected', accounts: [] });
    const ibans = await flow.call<{ ibans: unknown[] }>('GET', '/api/8/ibans', { headers: flow.auth });
    expect(ibans.body.ibans).toEqual([]);
  });
});

describe('with a short SCA timeout', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ env: { OPENBANKING_SCA_TIMEOUT: '3s' } });
  });
  afterAll(async () => {
    await platform?.stop();
  });

  it('abandoned: the user logs in and walks away; ABANDONED, the bank consent is ended, the hook says so', async () => {
    const flow = await integrator(platform);
    const consent = await startConsent(flow);
    const page = await browser.newPage();
    try {
      await logInAtBank(page, consent);
      await expect.poll(() => page.getByRole('button', { name: 'Approve' }).isVisible()).toBe(true);

      const event = await verifiedHookCall(platform, consent.state);
      expect(event).toMatchObject({ status: 'ABANDONED', bankStatus: 'terminatedByTpp', accounts: [] });

      // Too late: the bank no longer takes the approval.
      await page.getByRole('button', { name: 'Approve' }).click();
      expect(await page.textContent('body')).toContain('Request closed');
    } finally {
      await page.close();
    }
    const tokens = await flow.call<{ tokens: { status: string }[] }>('GET', '/api/8/tokens', {
      headers: flow.auth,
    });
    expect(tokens.body.tokens).toEqual([expect.objectContaining({ status: 'ABANDONED' })]);
  });
});
