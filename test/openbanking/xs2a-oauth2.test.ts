import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obConsents } from '../../db/schema/openbanking.ts';
import { bankHashOf } from '../../domain/openbanking/bank-directory.ts';
import { consentRefreshWorkflowId } from '../../domain/openbanking/processes.ts';
import { driveSca } from '../../sandbox/openbanking/sca-driver.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { consentOnceSettled, newCustomer, startConsent } from './consent-helpers.ts';
import { bankOf } from './payment-helpers.ts';

/**
 * OAuth2 as SCA approach (decision 0067), end to end over HTTP against Sandbox Bank O: the consent's
 * answer carries `_links.scaOAuth`; the gateway reads the bank's authorisation-server metadata, sends the
 * user to the authorisation request (PKCE S256, our callback as redirect_uri), exchanges the code the
 * callback brings, and reads the accounts with the bearer token, kept encrypted beside the consent.
 */

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({
    env: { OPENBANKING_REFRESH_INTERVAL: '1500ms', OPENBANKING_REFRESHES_PER_RUN: '2' },
  });
}, 60_000);
afterAll(async () => {
  await platform?.stop();
});

const bankO = () => bankOf(platform, 'bank-o');
const sandboxUrl = (path: string) => `${platform.sandbox.banks.url}${path}`;

async function consentRow(consentId: string) {
  const [row] = await platform.db.select().from(obConsents).where(eq(obConsents.id, consentId));
  return row!;
}

async function historyBytes(consentId: string): Promise<Buffer> {
  const history = await platform.client.workflow.getHandle(`ob-consent-${consentId}`).fetchHistory();
  return Buffer.from(temporal.api.history.v1.History.encode(history).finish());
}

describe('a consent at a bank that runs OAuth2 as SCA approach (Bank O)', () => {
  it('redirect to the authorisation request, approve, callback with the code: ACTIVE, reads with the bearer token; nothing secret in clear', async () => {
    const customer = await newCustomer(platform);
    const started = await startConsent(customer, { bankHash: bankHashOf('bank-o'), frequencyPerDay: 50 });
    const authorize = new URL(started.scaRedirectUrl);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(
      `${platform.sandbox.banks.publicUrl}/bank-o/oauth2/authorize`,
    );
    const bankConsent = [...bankO().consents.values()].at(-1)!;
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: 'integration-platform',
      redirect_uri: started.callbackUrl,
      scope: `AIS:${bankConsent.consentId}`,
      code_challenge_method: 'S256',
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      state: expect.any(String),
    });

    const { returnForm, submitted } = await driveSca(started.scaRedirectUrl, {
      psuId: 'olga',
      password: 'sandbox-olga',
      decision: 'approve',
      submit: true,
    });
    const back = new URL(returnForm.action);
    expect(`${back.origin}${back.pathname}`).toBe(started.callbackUrl);
    expect(back.searchParams.get('state')).toBe(authorize.searchParams.get('state'));
    const code = back.searchParams.get('code')!;
    expect(code).toBeTruthy();
    expect(submitted!.status).toBe(200);

    expect(await consentOnceSettled(customer, started.consentId)).toMatchObject({
      status: 'ACTIVE',
      bankStatus: 'valid',
      accounts: 1,
    });
    // The bank witnessed the token request: our verifier matched the challenge of the authorisation request.
    const issued = bankO().oauth.witnessed.find((entry) => entry.consentId === bankConsent.consentId)!;
    expect(issued.code).toBe(code);
    expect(createHash('sha256').update(issued.codeVerifier!).digest('base64url')).toBe(
      authorize.searchParams.get('code_challenge'),
    );
    expect(issued.codeVerifier!.length).toBeGreaterThanOrEqual(43);

    // The accounts were read with the bearer token (the bank refuses reads without it).
    const { body } = await customer.call<{ ibans: { ibanId: string; ownerName: string }[] }>(
      'GET',
      '/api/8/ibans',
      { headers: customer.headers },
    );
    expect(body.ibans).toHaveLength(1);
    expect(body.ibans[0]!.ownerName).toBe('Olga Bauer');
    const transactions = await customer.call<{ booked: unknown[]; pending: unknown[] }>(
      'GET',
      `/api/8/transactions/${body.ibans[0]!.ibanId}`,
      { headers: customer.headers },
    );
    expect(transactions.body.booked.length + transactions.body.pending.length).toBe(20);

    // The database holds the tokens encrypted, never the code, the verifier or a token in clear.
    const row = await consentRow(started.consentId);
    expect(row.bankAccessTokenSealed).toMatch(/^v1\./);
    expect(row.bankRefreshTokenSealed).toMatch(/^v1\./);
    expect(row.bankTokenEndpoint).toBe(`${platform.sandbox.banks.url}/bank-o/oauth2/token`);
    const stored = JSON.stringify(row);
    for (const secret of [code, issued.codeVerifier!, issued.accessToken, issued.refreshToken])
      expect(stored.includes(secret)).toBe(false);
    // The history holds them sealed by the payload codec only.
    const bytes = await historyBytes(started.consentId);
    for (const secret of [code, issued.codeVerifier!, issued.accessToken, issued.refreshToken])
      expect(bytes.includes(secret)).toBe(false);
  });

  it('the user denies at the bank: the callback carries access_denied and the consent ends REJECTED', async () => {
    const customer = await newCustomer(platform);
    const started = await startConsent(customer, { bankHash: bankHashOf('bank-o') });
    const { returnForm, submitted } = await driveSca(started.scaRedirectUrl, {
      psuId: 'olga',
      password: 'sandbox-olga',
      decision: 'deny',
      submit: true,
    });
    expect(new URL(returnForm.action).searchParams.get('error')).toBe('access_denied');
    expect(submitted!.status).toBe(200);
    expect(await consentOnceSettled(customer, started.consentId)).toMatchObject({
      status: 'REJECTED',
      bankStatus: 'rejected',
    });
    expect((await consentRow(started.consentId)).bankAccessTokenSealed).toBeNull();
  });

  /** A consent at Bank O approved through the gateway; its bank consent id. */
  async function activeConsent() {
    const customer = await newCustomer(platform);
    const started = await startConsent(customer, { bankHash: bankHashOf('bank-o'), frequencyPerDay: 50 });
    await driveSca(started.scaRedirectUrl, {
      psuId: 'olga',
      password: 'sandbox-olga',
      decision: 'approve',
      submit: true,
    });
    expect(await consentOnceSettled(customer, started.consentId)).toMatchObject({ status: 'ACTIVE' });
    const bankConsentId = (await consentRow(started.consentId)).bankConsentId!;
    const issued = () => bankO().oauth.witnessed.filter((entry) => entry.consentId === bankConsentId);
    return { customer, started, bankConsentId, issued };
  }

  const tokenTtl = (seconds: number) =>
    fetch(sandboxUrl('/bank-o/sandbox/oauth/token-ttl'), {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ seconds }),
    });
  const expireAtTheBank = (bankConsentId: string, refresh: boolean) =>
    fetch(sandboxUrl(`/bank-o/sandbox/consents/${bankConsentId}/oauth/expire`), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh }),
    });

  it('short-lived access tokens are refreshed with the refresh token before they expire', async () => {
    // Every read refreshes first: the tokens live 20 s, the gateway renews 30 s ahead.
    expect((await tokenTtl(20)).status).toBe(200);
    try {
      const { started, issued } = await activeConsent();
      await eventually(async () => (issued().length >= 3 ? true : undefined), 20_000, 'refreshed tokens');
      expect((await consentRow(started.consentId)).status).toBe('ACTIVE');
    } finally {
      await tokenTtl(3600);
    }
  });

  it('a token the bank ends early is renewed on TOKEN_EXPIRED; without a refresh token the consent needs a new SCA', async () => {
    const { customer, started, bankConsentId, issued } = await activeConsent();
    const sealedBefore = (await consentRow(started.consentId)).bankAccessTokenSealed;
    // The bank ends the access token an hour early: the next scheduled read is refused, renewed, read again.
    expect((await expireAtTheBank(bankConsentId, false)).status).toBe(204);
    await eventually(async () => (issued().length >= 2 ? true : undefined), 20_000, 'a renewed token');
    await eventually(
      async () =>
        (await consentRow(started.consentId)).bankAccessTokenSealed !== sealedBefore ? true : undefined,
      20_000,
      'the renewed token stored',
    );
    expect((await consentRow(started.consentId)).status).toBe('ACTIVE');

    // The bank withdraws the refresh token too: the next refresh cannot read; a new SCA is needed.
    expect((await expireAtTheBank(bankConsentId, true)).status).toBe(204);
    expect(
      await consentOnceSettled(customer, started.consentId, (token) => token.status !== 'ACTIVE'),
    ).toMatchObject({ status: 'REVOKED' });
    expect(
      await platform.client.workflow.getHandle(consentRefreshWorkflowId(started.consentId)).result(),
    ).toBe('REVOKED');
  });
});

describe("Bank O's authorisation server (the sandbox alone)", () => {
  const xs2a = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
    fetch(sandboxUrl(`/bank-o/v1${path}`), {
      ...init,
      headers: { 'x-request-id': randomUUID(), 'content-type': 'application/json', ...init.headers },
    });
  const redirectUri = 'https://tpp.example/callback';
  const token = (form: Record<string, string>) =>
    fetch(sandboxUrl('/bank-o/oauth2/token'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });

  async function approvedCode(verifier: string) {
    const created = await xs2a('/consents', {
      method: 'POST',
      headers: { 'tpp-redirect-uri': redirectUri },
      body: JSON.stringify({
        access: { allPsd2: 'allAccounts' },
        recurringIndicator: true,
        validUntil: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
        frequencyPerDay: 4,
        combinedServiceIndicator: false,
      }),
    });
    expect(created.status).toBe(201);
    const consent = (await created.json()) as { consentId: string; _links: { scaOAuth: { href: string } } };
    const metadata = (await (await fetch(consent._links.scaOAuth.href)).json()) as {
      authorization_endpoint: string;
      token_endpoint: string;
      code_challenge_methods_supported: string[];
    };
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
    const authorize = new URL(metadata.authorization_endpoint);
    const params = {
      response_type: 'code',
      client_id: 'tpp-1',
      redirect_uri: redirectUri,
      scope: `AIS:${consent.consentId}`,
      state: 'xyz',
    };
    for (const [name, value] of Object.entries(params)) authorize.searchParams.set(name, value);
    // Without PKCE the request is sent back refused.
    const plain = await fetch(authorize, { redirect: 'manual' });
    expect(plain.status).toBe(303);
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    authorize.searchParams.set('code_challenge', createHash('sha256').update(verifier).digest('base64url'));
    authorize.searchParams.set('code_challenge_method', 'S256');
    const { returnForm } = await driveSca(authorize.toString(), {
      psuId: 'olga',
      password: 'sandbox-olga',
      decision: 'approve',
    });
    const back = new URL(returnForm.action);
    expect(back.searchParams.get('state')).toBe('xyz');
    return { consentId: consent.consentId, code: back.searchParams.get('code')! };
  }

  it('refuses a wrong code_verifier; the right one gets the tokens once; reads need the bearer token', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const { consentId, code } = await approvedCode(verifier);
    const grant = { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: 'tpp-1' };

    const wrong = await token({ ...grant, code_verifier: randomBytes(32).toString('base64url') });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: 'invalid_grant' });
    // Not yet valid: the reads are refused.
    expect((await xs2a('/accounts', { headers: { 'consent-id': consentId } })).status).toBe(401);

    const right = await token({ ...grant, code_verifier: verifier });
    expect(right.status).toBe(200);
    const tokens = (await right.json()) as {
      access_token: string;
      refresh_token: string;
      expires_in: number;
    };
    expect(tokens).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.any(String),
    });
    // The code is one-use.
    const again = await token({ ...grant, code_verifier: verifier });
    expect(again.status).toBe(400);

    const withoutToken = await xs2a('/accounts', { headers: { 'consent-id': consentId } });
    expect(withoutToken.status).toBe(401);
    expect(await withoutToken.json()).toMatchObject({ tppMessages: [{ code: 'TOKEN_INVALID' }] });
    const withToken = await xs2a('/accounts', {
      headers: { 'consent-id': consentId, authorization: `Bearer ${tokens.access_token}` },
    });
    expect(withToken.status).toBe(200);

    const refreshed = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: 'tpp-1',
    });
    expect(refreshed.status).toBe(200);
    expect(((await refreshed.json()) as { access_token: string }).access_token).not.toBe(tokens.access_token);
  });
});
