import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMessagingClient } from '../../clients/src/messaging.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { handedOverMessage, messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
const api = messagingClient(() => platform);

beforeAll(async () => {
  platform = await startTestPlatform({ chatAppDelayMs: 200 });
});
afterAll(async () => {
  await platform?.stop();
});

/** The typed client (clients/, decision 0058) with the test account's token. */
const messaging = () => createMessagingClient(platform.apiUrl, platform.token);

const finalStatus = (id: string) =>
  eventually(async () => {
    const { data } = await messaging().GET('/sms/{id}', { params: { path: { id } } });
    return data &&
      ['delivered', 'undeliverable', 'expired', 'rejected', 'failed', 'unknown'].includes(data.status)
      ? data
      : undefined;
  });

describe('POST /chatapp', () => {
  it('sends through the chat-app provider and reports delivery to dlrUrl', async () => {
    const receiver = await startReceiver();
    try {
      const { response, data } = await messaging().POST('/chatapp', {
        body: { to: '+359888123456', from: '+359888000111', message: 'Hello 👋', dlrUrl: receiver.url },
      });
      expect(response.status).toBe(202);
      expect(data).toMatchObject({ status: 'accepted', encoding: 'UTF-8', parts: 1, to: '+359888123456' });
      const id = data?.id ?? '';
      expect(await finalStatus(id)).toMatchObject({ channel: 'chatapp', status: 'delivered' });
      const report = await eventually(async () => receiver.requests[0]);
      expect(JSON.parse(report.body)).toMatchObject({
        type: 'message.status',
        data: { id, channel: 'chatapp', status: 'delivered' },
      });
      expect(
        platform.sandbox.http.chatAppMessages.filter((m) => m.bizOpaqueCallbackData === id),
      ).toHaveLength(1);
    } finally {
      await receiver.stop();
    }
  });

  it('reports a recipient who is not on the chat app as undeliverable', async () => {
    const { data } = await messaging().POST('/chatapp', {
      body: { to: '+359888120000', from: '+359888000111', message: 'Anyone?' },
    });
    expect(await finalStatus(data?.id ?? '')).toMatchObject({
      status: 'undeliverable',
      error: '131026: Message undeliverable',
    });
  });

  it.each([
    ['missing to', { from: '+359888000111', message: 'x' }, 400, 'validation_failed', 'to'],
    ['invalid number', { to: '+3591', from: '+359888000111', message: 'x' }, 400, 'validation_failed', 'to'],
    [
      'message of wrong type',
      { to: '+359888123456', from: '+359888000111', message: 42 },
      400,
      'validation_failed',
      'message',
    ],
    [
      'oversize message',
      { to: '+359888123456', from: '+359888000111', message: 'x'.repeat(4097) },
      400,
      'validation_failed',
      'message',
    ],
    [
      'unapproved sender ID',
      { to: '+359888123456', from: 'ACME', message: 'x' },
      422,
      'sender_id_not_approved',
      'from',
    ],
    [
      'unverified from number',
      { to: '+359888123456', from: '+359888777666', message: 'x' },
      422,
      'number_not_verified',
      'from',
    ],
  ])('%s → %i', async (_name, body, status, code, field) => {
    // Bodies the types refuse (a number as message): sent raw, as a careless integrator would.
    const response = await api('POST', '/chatapp', { body });
    expect(response.status).toBe(status);
    expect(response.json.error?.code).toBe(code);
    expect(response.json.error?.fields?.map((f) => f.field)).toEqual([field]);
  });
});

/** The platform's callback URL for the chat-app provider's webhooks (decision 0062). */
const webhookUrl = () => `${platform.baseUrl}/chatapp/webhook`;
const APP_SECRET = 'sandbox-chatapp-app-secret';

/** A WhatsApp Cloud API notification of one status of a message we sent. */
function notification(messageId: string, status: string, extra: Record<string, unknown> = {}) {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '100000000000000',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550000001', phone_number_id: '100000000000001' },
              statuses: [
                {
                  id: `wamid.test-${messageId}`,
                  status,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  recipient_id: '359888123456',
                  biz_opaque_callback_data: messageId,
                  ...extra,
                },
              ],
            },
          },
        ],
      },
    ],
  });
}

const post = (body: string, signature?: string) =>
  fetch(webhookUrl(), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(signature ? { 'x-hub-signature-256': signature } : {}),
    },
    body,
  });
const sign = (body: string, secret = APP_SECRET) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

const send = async (to: string) => {
  const { status, json } = await api('POST', '/chatapp', {
    body: { to, from: '+359888000111', message: 'Status test' },
  });
  expect(status).toBe(202);
  const id = json.id as string;
  // A provider reports on a message it was given: wait for the hand-over to its workflow.
  await handedOverMessage(platform, id);
  return id;
};

describe('the chat-app provider webhook (/messaging/chatapp/webhook)', () => {
  it('answers the subscription check with the challenge, and only with the verify token', async () => {
    const check = (token: string) =>
      fetch(`${webhookUrl()}?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=1158201444`);
    const good = await check('sandbox-chatapp-verify-token');
    expect(good.status).toBe(200);
    expect(await good.text()).toBe('1158201444');
    const wrong = await check('guess');
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toMatchObject({
      error: { code: 'verify_token_invalid', fields: [{ field: 'hub.verify_token' }] },
    });
  });

  it('refuses a notification without a signature (401) or with a bad one (403), applying nothing', async () => {
    // A number the sandbox reports delivered: a forged `failed` applied would make it undeliverable.
    const id = await send('+359888123470');
    const forged = notification(id, 'failed', { errors: [{ code: 131026, title: 'Forged' }] });

    const unsigned = await post(forged);
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toEqual({
      error: {
        code: 'signature_missing',
        message: 'The notification carries no X-Hub-Signature-256',
        fields: [{ field: 'x-hub-signature-256', message: expect.any(String) }],
      },
    });
    for (const signature of [
      sign(forged, 'not-the-app-secret'),
      sign(`${forged} `),
      'sha256=zz',
      'sha1=00',
    ]) {
      const refused = await post(forged, signature);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({
        error: { code: 'signature_invalid', fields: [{ field: 'x-hub-signature-256' }] },
      });
    }
    // Signed but not JSON: judged only after the signature.
    const notJson = await post('{not json', sign('{not json'));
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: { code: 'malformed_request' } });

    expect(await finalStatus(id)).toMatchObject({ status: 'delivered', error: null });
  });

  it('a signed `read` makes the message delivered, a signed `failed` undeliverable with its error', async () => {
    // The sandbox would report this one failed (not on WhatsApp): the `read` posted first wins.
    const read = await send('+359888120000');
    const readEvent = notification(read, 'read');
    const answer = await post(readEvent, sign(readEvent));
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ statuses: 1, applied: 1 });
    expect(await finalStatus(read)).toMatchObject({ status: 'delivered', error: null });

    // The sandbox would report this one delivered: the `failed` posted first wins.
    const failed = await send('+359888123471');
    const failedEvent = notification(failed, 'failed', {
      errors: [
        { code: 131049, title: 'This message was not delivered to maintain healthy ecosystem engagement.' },
      ],
    });
    expect((await post(failedEvent, sign(failedEvent))).status).toBe(200);
    expect(await finalStatus(failed)).toMatchObject({
      status: 'undeliverable',
      error: '131049: This message was not delivered to maintain healthy ecosystem engagement.',
    });
  });

  it('takes and ignores statuses of unknown messages, of other numbers and `sent`', async () => {
    const unknown = notification('00000000-0000-4000-8000-000000000000', 'delivered');
    const answer = await post(unknown, sign(unknown));
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ statuses: 1, applied: 0 });
    const id = await send('+359888123472');
    const sent = notification(id, 'sent');
    expect(await (await post(sent, sign(sent))).json()).toEqual({ statuses: 1, applied: 0 });
    const otherNumber = notification(id, 'failed').replace('"100000000000001"', '"999"');
    expect(await (await post(otherNumber, sign(otherNumber))).json()).toEqual({ statuses: 1, applied: 0 });
    expect(await finalStatus(id)).toMatchObject({ status: 'delivered' });
  });
});
