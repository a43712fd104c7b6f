import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { all as allOperators } from 'mcc-mnc-list';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHlrProvider } from '../../connectors/messaging/hlr-provider.ts';
import { verifyWebhook } from '../../domain/webhooks/signature.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  platform = await startTestPlatform();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.stop();
  await platform?.stop();
});
afterEach(() => {
  receiver.requests.length = 0;
});

const api = messagingClient(() => platform);

const bulgarianNetworks = new Set(
  allOperators()
    .filter((operator) => operator.countryCode === 'BG')
    .map((operator) => operator.mcc + operator.mnc),
);

const validationError = (field: string, message: string) => ({
  status: 400,
  json: {
    error: { code: 'validation_failed', message: 'The request is not valid', fields: [{ field, message }] },
  },
});

/** Waits for the callback of one lookup and checks its signature as the customer would. */
async function callbackFor(lookupId: string) {
  const request = await eventually(
    async () => receiver.requests.find((entry) => JSON.parse(entry.body).data?.id === lookupId),
    20_000,
    `the HLR callback of ${lookupId}`,
  );
  // The secret as its owner reads it (stored encrypted: webhook_endpoints.secret_encrypted).
  const listed = (await (
    await fetch(`${platform.baseUrl}/webhooks/endpoints?at=${encodeURIComponent(platform.token)}`)
  ).json()) as { items: { url: string; secret: string }[] };
  const endpoint = listed.items.find((item) => item.url === receiver.url);
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name, String(value)]),
  );
  expect(verifyWebhook(endpoint!.secret, headers, request.body)).toEqual({ valid: true });
  return JSON.parse(request.body) as { type: string; data: Record<string, unknown> };
}

describe('POST /hlr', () => {
  it('accepts the lookup at once and POSTs the signed result to callBackUrl', async () => {
    const accepted = await api('POST', '/hlr', {
      body: { number: '+359 888 123 456', callBackUrl: receiver.url },
    });
    expect(accepted.status).toBe(202);
    expect(accepted.json).toEqual({ id: expect.any(String), number: '+359888123456', status: 'pending' });
    const id = accepted.json.id as string;

    const callback = await callbackFor(id);
    expect(callback.type).toBe('hlr.result');
    const result = callback.data;
    expect(Object.keys(result).sort()).toEqual([
      'country',
      'error',
      'id',
      'imsi',
      'mcc',
      'mnc',
      'operatorId',
      'ported',
    ]);
    expect(result).toMatchObject({ id, error: null, country: 'BG', mcc: '284', ported: [] });
    expect(result.operatorId).toBe(`${result.mcc}${result.mnc}`);
    expect(bulgarianNetworks.has(result.operatorId as string)).toBe(true);
    expect(result.imsi).toMatch(new RegExp(`^${result.operatorId}\\d+$`));
    expect((result.imsi as string).length).toBe(15);

    const lookup = await api('GET', `/hlr/${id}`);
    expect(lookup.status).toBe(200);
    expect(lookup.json).toMatchObject({
      id,
      number: '+359888123456',
      status: 'completed',
      callBackUrl: receiver.url,
      result,
    });
  });

  it('gives the same answer for the same number', async () => {
    const first = await api('POST', '/hlr', { body: { number: '+359888123456', callBackUrl: receiver.url } });
    const second = await api('POST', '/hlr', {
      body: { number: '+359888123456', callBackUrl: receiver.url },
    });
    const [a, b] = [await callbackFor(first.json.id as string), await callbackFor(second.json.id as string)];
    expect({ ...a.data, id: undefined }).toEqual({ ...b.data, id: undefined });
  });

  it('reports an unknown subscriber and a ported number', async () => {
    const unknown = await api('POST', '/hlr', {
      body: { number: '+359888100000', callBackUrl: receiver.url },
    });
    expect((await callbackFor(unknown.json.id as string)).data).toMatchObject({
      error: 'unknown_subscriber',
      imsi: null,
      country: 'BG',
      ported: [],
    });

    const ported = await api('POST', '/hlr', {
      body: { number: '+359888100002', callBackUrl: receiver.url },
    });
    const result = (await callbackFor(ported.json.id as string)).data;
    expect(result).toMatchObject({ error: null, country: 'BG', mcc: '284' });
    const from = result.ported as string[];
    expect(from).toHaveLength(1);
    expect(bulgarianNetworks.has(from[0]!)).toBe(true);
    expect(from[0]).not.toBe(result.operatorId);
  });

  it.each([
    [
      'an invalid number',
      { number: '+35912', callBackUrl: 'https://example.com/hlr' },
      'number',
      'not a valid phone number in international format',
    ],
    [
      'a missing number',
      { callBackUrl: 'https://example.com/hlr' },
      'number',
      'Invalid input: expected string, received undefined',
    ],
    [
      'a missing callBackUrl',
      { number: '+359888123456' },
      'callBackUrl',
      'Invalid input: expected string, received undefined',
    ],
    [
      'a callBackUrl that is not http(s)',
      { number: '+359888123456', callBackUrl: 'ftp://example.com/x' },
      'callBackUrl',
      'must be an http or https URL',
    ],
    [
      'a callBackUrl that is no URL',
      { number: '+359888123456', callBackUrl: 'example' },
      'callBackUrl',
      'must be an http or https URL',
    ],
  ])('rejects %s with 400 naming the field', async (_case, body, field, message) => {
    expect(await api('POST', '/hlr', { body })).toEqual(validationError(field, message));
  });

  it('requires the access token', async () => {
    expect(
      await api('POST', '/hlr', {
        body: { number: '+359888123456', callBackUrl: receiver.url },
        token: null,
      }),
    ).toEqual({
      status: 401,
      json: {
        error: { code: 'unauthorized', message: 'The access token (query parameter `at`) is missing' },
      },
    });
  });

  it('shows a lookup to its owner only', async () => {
    const { json } = await api('POST', '/hlr', {
      body: { number: '+359888123456', callBackUrl: receiver.url },
    });
    const other = await platform.issueToken();
    const notFound = { status: 404, json: { error: { code: 'not_found', message: 'HLR lookup not found' } } };
    expect(await api('GET', `/hlr/${json.id}`, { token: other.token })).toEqual(notFound);
    expect(await api('GET', `/hlr/${randomUUID()}`)).toEqual(notFound);
  });
});

describe('HLR provider client against the sandbox HLR', () => {
  const provider = (apiKey = 'sandbox-hlr-key') =>
    createHlrProvider({ baseUrl: `${platform.sandbox.http.url}/hlr`, apiKey });

  it('maps a number to a network of its own country, deterministically', async () => {
    const answer = await provider().lookup('+4915112345678');
    expect(answer).toMatchObject({ error: null, mcc: '262', ported: [] });
    expect(answer.imsi).toMatch(/^262\d{12}$/);
    expect(await provider().lookup('+4915112345678')).toEqual(answer);
  });

  it('reports an absent subscriber', async () => {
    expect(await provider().lookup('+359888100001')).toMatchObject({
      error: 'absent_subscriber',
      mcc: '284',
    });
  });

  it('refuses a wrong API key without retrying', async () => {
    const refusal = await provider('wrong')
      .lookup('+359888123456')
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ApplicationFailure);
    expect(refusal).toMatchObject({ nonRetryable: true, type: 'HlrLookupRefused' });
  });

  it('throws a retryable error when the provider is unavailable', async () => {
    const unavailable = createHlrProvider({
      baseUrl: 'http://hlr.invalid',
      apiKey: 'k',
      fetch: async () => new Response('maintenance', { status: 503 }),
    });
    const failure = await unavailable.lookup('+359888123456').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(ApplicationFailure);
    expect((failure as Error).message).toBe('HLR provider answered 503: maintenance');
  });
});
