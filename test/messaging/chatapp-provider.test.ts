import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatAppProvider } from '../../connectors/messaging/chatapp-provider.ts';
import {
  statusEventsOf,
  verifyHubSignature,
  whatsAppNotificationSchema,
} from '../../connectors/messaging/whatsapp-webhook.ts';
import { type SandboxHttpParties, startHttpParties } from '../../sandbox/messaging/http-parties.ts';
import { type ReceivedRequest, startReceiver } from '../../sandbox/webhook-receiver.ts';
import { eventually } from '../support/platform.ts';

/**
 * The WhatsApp Cloud API client (decision 0062) against the sandbox provider over loopback HTTP, and the
 * sandbox's signed status webhooks read by the platform's own verification and parsing.
 */

const TOKEN = 'test-whatsapp-token';
const PHONE_NUMBER_ID = '106540352242922';
const APP_SECRET = 'test-app-secret';
const VERIFY_TOKEN = 'test-verify-token';
const DELAY_MS = 150;

let parties: SandboxHttpParties;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

/** A webhook endpoint: echoes the subscription check's challenge when the verify token matches. */
function answer(_attempt: number, request: ReceivedRequest) {
  if (request.method !== 'GET') return { status: 200 };
  const query = new URL(request.path, 'http://receiver').searchParams;
  return query.get('hub.verify_token') === VERIFY_TOKEN && query.get('hub.mode') === 'subscribe'
    ? { status: 200, body: query.get('hub.challenge') ?? '' }
    : { status: 403 };
}

beforeAll(async () => {
  parties = await startHttpParties({
    port: 0,
    chatAppDelayMs: DELAY_MS,
    chatAppApiKey: TOKEN,
    chatAppPhoneNumberId: PHONE_NUMBER_ID,
    chatAppAppSecret: APP_SECRET,
  });
  receiver = await startReceiver(answer);
  expect(
    await parties.subscribeChatAppWebhook({ callbackUrl: receiver.url, verifyToken: VERIFY_TOKEN }),
  ).toBe(true);
});
afterAll(async () => {
  await parties?.stop();
  await receiver?.stop();
});

const provider = (overrides: { accessToken?: string; phoneNumberId?: string; fetch?: typeof fetch } = {}) =>
  createChatAppProvider({
    baseUrl: `${parties.url}/chatapp/v21.0`,
    phoneNumberId: PHONE_NUMBER_ID,
    accessToken: TOKEN,
    ...overrides,
  });
const submission = (to: string) => ({
  messageId: randomUUID(),
  to,
  from: 'ACME',
  message: 'Your code is 4711',
});

/** The status events the receiver got for one WhatsApp message, after checking each signature. */
function eventsFor(wamid: string) {
  return receiver.requests
    .filter((request) => request.method === 'POST')
    .flatMap((request) => {
      const signature = String(request.headers['x-hub-signature-256'] ?? '');
      expect(verifyHubSignature(Buffer.from(request.body), signature, APP_SECRET)).toEqual({ valid: true });
      return statusEventsOf(whatsAppNotificationSchema.parse(JSON.parse(request.body)));
    })
    .filter((event) => event.carrierMessageId === wamid);
}

describe('WhatsApp Cloud API client against the sandbox provider', () => {
  it('sends a text message as the Cloud API expects it and keeps the wamid', async () => {
    const message = submission('+359888123456');
    const result = await provider().submit(message);
    expect(result).toEqual({ outcome: 'submitted', carrierMessageId: expect.stringMatching(/^wamid\./) });
    if (result.outcome !== 'submitted') throw new Error('not submitted');
    const sent = parties.chatAppMessages.find((entry) => entry.id === result.carrierMessageId);
    expect(sent).toMatchObject({
      phoneNumberId: PHONE_NUMBER_ID,
      to: '359888123456',
      type: 'text',
      text: 'Your code is 4711',
      bizOpaqueCallbackData: message.messageId,
    });
    expect(provider().identity).toBe(`${parties.url}/chatapp/v21.0/${PHONE_NUMBER_ID}`);
  });

  it('reports sent, delivered and read by signed webhook, naming our message id', async () => {
    const message = submission('+359888123457');
    const result = await provider().submit(message);
    if (result.outcome !== 'submitted') throw new Error('not submitted');
    const events = await eventually(async () => {
      const found = eventsFor(result.carrierMessageId);
      return found.length >= 3 ? found : undefined;
    });
    expect(events.map((event) => event.status)).toEqual(['sent', 'delivered', 'read']);
    expect(events.every((event) => event.messageId === message.messageId)).toBe(true);
    expect(events.every((event) => event.phoneNumberId === PHONE_NUMBER_ID)).toBe(true);
    expect(events[0]?.receipt).toBeUndefined();
    expect(events[1]?.receipt).toMatchObject({ status: 'delivered', carrierStatus: 'delivered' });
    expect(events[2]?.receipt).toMatchObject({ status: 'delivered', carrierStatus: 'read' });
    expect(Date.parse(events[1]?.receipt?.doneAt ?? '')).toBeGreaterThan(0);
  });

  it('reports a recipient who is not on WhatsApp as failed with error 131026', async () => {
    const result = await provider().submit(submission('+359888100000'));
    if (result.outcome !== 'submitted') throw new Error('not submitted');
    const failed = await eventually(async () =>
      eventsFor(result.carrierMessageId).find((event) => event.status === 'failed'),
    );
    expect(failed.receipt).toMatchObject({
      status: 'undeliverable',
      carrierStatus: 'failed',
      errorCode: '131026: Message undeliverable',
    });
  });

  it('the sandbox refuses a wrong bearer token with a Graph OAuthException, and the client retries it', async () => {
    const response = await fetch(`${parties.url}/chatapp/v21.0/${PHONE_NUMBER_ID}/messages`, {
      method: 'POST',
      headers: { authorization: 'Bearer wrong', 'content-type': 'application/json' },
      body: JSON.stringify({
        messaging_product: 'whatsapp',
        to: '359888123458',
        type: 'text',
        text: { body: 'x' },
      }),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: {
        message: expect.stringContaining('Invalid OAuth access token'),
        type: 'OAuthException',
        code: 190,
        fbtrace_id: expect.any(String),
      },
    });
    // An invalid token is the operator's to fix: thrown, so the hand-over is retried until SMS_SUBMIT_TIMEOUT.
    await expect(provider({ accessToken: 'wrong' }).submit(submission('+359888123458'))).rejects.toThrow(
      'WhatsApp Cloud API failed (401): 190: Invalid OAuth access token',
    );
  });

  it('returns a Graph refusal of the message (code 100) as rejected', async () => {
    expect(await provider().submit(submission('not-a-number'))).toEqual({
      outcome: 'rejected',
      error: '100: (#100) Invalid parameter (The parameter to must be a phone number)',
    });
    expect(await provider({ phoneNumberId: '999' }).submit(submission('+359888123458'))).toEqual({
      outcome: 'rejected',
      error: expect.stringMatching(/^100\/33: Unsupported post request/),
    });
  });

  it('throws on 5xx, 429, throttling codes and network failures so that the activity retries', async () => {
    const graph = (status: number, code: number) => async () =>
      new Response(JSON.stringify({ error: { message: 'busy', type: 'OAuthException', code } }), { status });
    for (const [status, code] of [
      [503, 2],
      [429, 4],
      [400, 130429],
      [400, 131056],
    ] as const) {
      await expect(
        provider({ fetch: graph(status, code) }).submit(submission('+359888123459')),
      ).rejects.toThrow(`WhatsApp Cloud API failed (${status}): ${code}: busy`);
    }
    const unreachable = createChatAppProvider({
      baseUrl: 'http://127.0.0.1:1/v21.0',
      phoneNumberId: PHONE_NUMBER_ID,
      accessToken: TOKEN,
    });
    await expect(unreachable.submit(submission('+359888123459'))).rejects.toThrow();
  });

  it('a wrong X-Hub-Signature-256 does not verify, nor a missing or malformed one', () => {
    const body = Buffer.from('{"object":"whatsapp_business_account","entry":[]}');
    const good = `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}`;
    expect(verifyHubSignature(body, good, APP_SECRET)).toEqual({ valid: true });
    const other = `sha256=${createHmac('sha256', 'other').update(body).digest('hex')}`;
    expect(verifyHubSignature(body, other, APP_SECRET)).toEqual({ valid: false, reason: 'mismatch' });
    expect(verifyHubSignature(Buffer.from(`${body} `), good, APP_SECRET)).toEqual({
      valid: false,
      reason: 'mismatch',
    });
    expect(verifyHubSignature(body, undefined, APP_SECRET)).toEqual({ valid: false, reason: 'missing' });
    expect(verifyHubSignature(body, 'sha1=abc', APP_SECRET)).toEqual({ valid: false, reason: 'malformed' });
  });

  it('a webhook that fails its subscription check gets no events', async () => {
    const other = await startHttpParties({ port: 0, chatAppDelayMs: 20, chatAppApiKey: TOKEN });
    try {
      expect(
        await other.subscribeChatAppWebhook({ callbackUrl: receiver.url, verifyToken: 'not-the-token' }),
      ).toBe(false);
    } finally {
      await other.stop();
    }
  });
});
