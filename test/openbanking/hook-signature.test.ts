import { compactVerify, createRemoteJWKSet } from 'jose';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../domain/webhooks/signature.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { addAccounts, bankHash, newCustomer } from './consent-helpers.ts';

/**
 * A hook's webhook endpoint and signing secret exist from `createhook` on, and every hook call carries
 * a Standard Webhooks signature besides its JWS, so one verifier serves all the platform's callbacks: by
 * default the body is a JSON envelope carrying the JWS, which the reference library's default verify()
 * accepts (decision 0064); a hook may keep the bare JWS body of 0.1.0.
 */

let platform: TestPlatform;
let hooks: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  platform = await startTestPlatform();
  hooks = await startReceiver();
}, 60_000);
afterAll(async () => {
  await platform?.stop();
  await hooks?.stop();
});

describe('hook signing secrets', () => {
  it('answers the endpoint and its secret to the agent at createhook, and signs the hook call with it', async () => {
    const customer = await newCustomer(platform, 'Signing agent');
    const url = `${hooks.url}/signed`;
    const created = await customer.call<{
      hookHash: string;
      webhookEndpointId: string;
      signingSecret: string;
    }>('POST', '/api/8/createhook', { headers: { 'x-agent-hash': customer.agentHash }, body: { url } });
    expect(created.status).toBe(201);
    expect(created.body.webhookEndpointId).toMatch(/^whe_/);
    expect(created.body.signingSecret).toMatch(/^whsec_/);

    // A user of the agent registering the same URL gets the same endpoint, but not its secret.
    const byUser = await customer.call<{ webhookEndpointId: string; signingSecret: string | null }>(
      'POST',
      '/api/8/createhook',
      { headers: customer.headers, body: { url } },
    );
    expect(byUser.status).toBe(201);
    expect(byUser.body).toMatchObject({
      webhookEndpointId: created.body.webhookEndpointId,
      signingSecret: null,
    });

    // Another agent naming the same URL has an endpoint (and secret) of its own.
    const stranger = await newCustomer(platform, 'Other agent');
    const theirs = await stranger.call<{ webhookEndpointId: string; signingSecret: string }>(
      'POST',
      '/api/8/createhook',
      { headers: { 'x-agent-hash': stranger.agentHash }, body: { url } },
    );
    expect(theirs.body.webhookEndpointId).not.toBe(created.body.webhookEndpointId);
    expect(theirs.body.signingSecret).not.toBe(created.body.signingSecret);

    // The agent's webhook routes: its endpoints with their secrets; nothing of another agent's; agents only.
    const listed = await customer.call<{ items: { id: string; secret: string }[] }>(
      'GET',
      '/webhooks/endpoints',
      {
        headers: { 'x-agent-hash': customer.agentHash },
      },
    );
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([
      expect.objectContaining({ id: created.body.webhookEndpointId, secret: created.body.signingSecret }),
    ]);
    const foreign = await stranger.call(
      'POST',
      `/webhooks/endpoints/${created.body.webhookEndpointId}/rotate-secret`,
      {
        headers: { 'x-agent-hash': stranger.agentHash },
      },
    );
    expect(foreign.status).toBe(404);
    const asUser = await customer.call('GET', '/webhooks/endpoints', { headers: customer.headers });
    expect(asUser.status).toBe(401);

    const { started } = await addAccounts(customer, 'bob', {
      bankHash: bankHash('bank-a'),
      hookHash: created.body.hookHash,
    });
    const call = await eventually(async () =>
      hooks.requests.find(
        (request) =>
          request.path.startsWith('/hooks/signed?') &&
          new URL(request.path, hooks.url).searchParams.get('state') === started.state,
      ),
    );
    const headers = Object.fromEntries(
      Object.entries(call.headers).map(([name, value]) => [name, String(value)]),
    );
    // By default a JSON envelope (decision 0064): the Standard Webhooks reference library's default
    // verify(), with the secret answered at createhook, accepts it and answers the parsed body.
    expect(call.headers['content-type']).toBe('application/json');
    const envelope = new Webhook(created.body.signingSecret).verify(call.body, headers) as {
      type: string;
      timestamp: string;
      data: { jws: string };
    };
    expect(envelope.type).toBe('consent.finished');
    expect(() => new Webhook(theirs.body.signingSecret).verify(call.body, headers)).toThrow(
      WebhookVerificationError,
    );
    expect(verifyWebhook(created.body.signingSecret, headers, call.body)).toEqual({ valid: true });
    // And the event is the JWS it carries, verified with the published key set.
    const jwks = createRemoteJWKSet(new URL(`${platform.openBanking.url}/api/6/.well-known/jwks.json`));
    const { payload } = await compactVerify(envelope.data.jws, jwks);
    expect(JSON.parse(new TextDecoder().decode(payload))).toMatchObject({
      type: 'consent.finished',
      consentId: started.consentId,
      state: started.state,
    });
  });

  it('writes the bare compact JWS of release 0.1.0 for a hook registered with bodyFormat jose', async () => {
    const customer = await newCustomer(platform, 'Jose agent');
    const created = await customer.call<{ hookHash: string; signingSecret: string; bodyFormat: string }>(
      'POST',
      '/api/8/createhook',
      {
        headers: { 'x-agent-hash': customer.agentHash },
        body: { url: `${hooks.url}/jose`, bodyFormat: 'jose' },
      },
    );
    expect(created.status).toBe(201);
    expect(created.body.bodyFormat).toBe('jose');
    const { started } = await addAccounts(customer, 'bob', {
      bankHash: bankHash('bank-a'),
      hookHash: created.body.hookHash,
    });
    const call = await eventually(async () =>
      hooks.requests.find(
        (request) =>
          request.path.startsWith('/hooks/jose?') &&
          new URL(request.path, hooks.url).searchParams.get('state') === started.state,
      ),
    );
    const headers = Object.fromEntries(
      Object.entries(call.headers).map(([name, value]) => [name, String(value)]),
    );
    expect(call.headers['content-type']).toBe('application/jose');
    // The signature covers the JWS text: the library verifies it only with jsonParse off.
    const verifier = new Webhook(created.body.signingSecret);
    expect(() => verifier.verify(call.body, headers, { jsonParse: false })).not.toThrow();
    expect(() => verifier.verify(call.body, headers)).toThrow();
    const jwks = createRemoteJWKSet(new URL(`${platform.openBanking.url}/api/6/.well-known/jwks.json`));
    const { payload } = await compactVerify(call.body, jwks);
    expect(JSON.parse(new TextDecoder().decode(payload))).toMatchObject({ consentId: started.consentId });
  });
});
