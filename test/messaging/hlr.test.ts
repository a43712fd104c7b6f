import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { all as allOperators } from 'mcc-mnc-list';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createHlrProvider,
  hlrAnswerOf,
  hlrDigestSignature,
} from '../../connectors/messaging/hlr-provider.ts';
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

describe('HLR Lookups API client (hlr-lookups.com) against the sandbox HLR', () => {
  const provider = (apiKey = 'sandbox-hlr-key', apiSecret = 'sandbox-hlr-secret') =>
    createHlrProvider({ baseUrl: `${platform.sandbox.http.url}/hlr`, apiKey, apiSecret });

  /** A request to the sandbox HLR signed as the Digest Auth of the API asks. */
  const signedLookup = (msisdn: string, options: { secret?: string; timestamp?: number } = {}) => {
    const body = JSON.stringify({ msisdn });
    const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
    return fetch(`${platform.sandbox.http.url}/hlr/hlr-lookup`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-digest-key': 'sandbox-hlr-key',
        'x-digest-timestamp': String(timestamp),
        'x-digest-signature': hlrDigestSignature(options.secret ?? 'sandbox-hlr-secret', {
          endpoint: '/hlr-lookup',
          timestamp,
          method: 'POST',
          body,
        }),
      },
      body,
    });
  };

  it('answers the HLR API lookup object', async () => {
    const response = await signedLookup('+4915112345678');
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{12}$/),
      msisdn: '+4915112345678',
      connectivity_status: 'CONNECTED',
      mcc: '262',
      mccmnc: `262${body.mnc}`,
      imsi: expect.stringMatching(/^262\d{12}$/),
      original_country_code: 'DE',
      original_country_prefix: '+49',
      is_ported: false,
      ported_network_name: null,
      is_roaming: false,
      processing_status: 'COMPLETED',
      error_code: null,
      data_source: 'LIVE_HLR',
    });
    expect(Object.keys(body)).toEqual(
      expect.arrayContaining([
        'msin',
        'msc',
        'original_network_name',
        'cost',
        'timestamp',
        'storage',
        'route',
      ]),
    );
  });

  it('maps a number to a network of its own country, deterministically', async () => {
    const answer = await provider().lookup('+4915112345678');
    expect(answer).toMatchObject({ error: null, mcc: '262', ported: [] });
    expect(answer.imsi).toMatch(/^262\d{12}$/);
    expect(await provider().lookup('+4915112345678')).toEqual(answer);
  });

  it('maps ABSENT, INVALID_MSISDN and a ported number to the platform answer', async () => {
    expect(await provider().lookup('+359888100001')).toMatchObject({
      error: 'absent_subscriber',
      mcc: '284',
    });
    expect(await provider().lookup('+359888100000')).toMatchObject({
      error: 'unknown_subscriber',
      imsi: null,
      mcc: null,
      mnc: null,
    });
    const ported = await provider().lookup('+359888100002');
    expect(ported.error).toBeNull();
    expect(ported.ported).toHaveLength(1);
    expect(bulgarianNetworks.has(ported.ported[0]!)).toBe(true);
    expect(ported.ported[0]).not.toBe(`${ported.mcc}${ported.mnc}`);
  });

  it('maps answers as the provider documents them: masked IMSI, UNDETERMINED, ported by network name', () => {
    expect(
      hlrAnswerOf({
        connectivity_status: 'CONNECTED',
        mcc: '284',
        mnc: '01',
        imsi: '***************',
        is_ported: true,
        original_network_name: 'Vivacom',
        original_country_code: 'BG',
        processing_status: 'COMPLETED',
      }),
    ).toEqual({ error: null, imsi: null, mcc: '284', mnc: '01', ported: ['28403'] });
    expect(hlrAnswerOf({ connectivity_status: 'UNDETERMINED', mcc: null, mnc: null, imsi: null })).toEqual({
      error: 'undetermined',
      imsi: null,
      mcc: null,
      mnc: null,
      ported: [],
    });
    // A network name the MCC/MNC list does not know gives no code rather than a wrong one.
    expect(
      hlrAnswerOf({
        connectivity_status: 'CONNECTED',
        is_ported: true,
        original_network_name: 'Nowhere Mobile',
        original_country_code: 'BG',
      }).ported,
    ).toEqual([]);
  });

  it('the sandbox refuses a wrong key, a wrong signature and a stale timestamp', async () => {
    expect((await signedLookup('+359888123456', { secret: 'wrong' })).status).toBe(401);
    expect(
      (await signedLookup('+359888123456', { timestamp: Math.floor(Date.now() / 1000) - 3600 })).status,
    ).toBe(401);
    const refusal = await provider('wrong')
      .lookup('+359888123456')
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ApplicationFailure);
    expect(refusal).toMatchObject({ nonRetryable: true, type: 'HlrLookupRefused' });
    const wrongSecret = await provider('sandbox-hlr-key', 'wrong')
      .lookup('+359888123456')
      .catch((error: unknown) => error);
    expect(wrongSecret).toMatchObject({ nonRetryable: true, type: 'HlrLookupRefused' });
  });

  it('throws a retryable error when the provider is unavailable or could not process the lookup', async () => {
    const answering = (response: () => Response) =>
      createHlrProvider({
        baseUrl: 'http://hlr.invalid',
        apiKey: 'k',
        apiSecret: 's',
        fetch: async () => response(),
      });
    const failure = await answering(() => new Response('maintenance', { status: 503 }))
      .lookup('+359888123456')
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(failure).not.toBeInstanceOf(ApplicationFailure);
    expect((failure as Error).message).toBe('HLR provider answered 503: maintenance');

    const failed = await answering(() => Response.json({ processing_status: 'FAILED', error_code: 'E1' }))
      .lookup('+359888123456')
      .catch((error: unknown) => error);
    expect(failed).not.toBeInstanceOf(ApplicationFailure);
    const rejected = await answering(() => Response.json({ processing_status: 'REJECTED' }))
      .lookup('+359888123456')
      .catch((error: unknown) => error);
    expect(rejected).toMatchObject({ nonRetryable: true, type: 'HlrLookupRefused' });
  });
});
