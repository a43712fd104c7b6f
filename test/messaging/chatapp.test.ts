import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMessagingClient } from '../../clients/src/messaging.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { messagingClient } from '../support/messaging-client.ts';
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
    return data && ['delivered', 'undeliverable', 'expired', 'rejected', 'failed'].includes(data.status)
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
      expect(platform.sandbox.http.chatAppMessages.filter((m) => m.idempotencyKey === id)).toHaveLength(1);
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
      error: 'not_on_chatapp',
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
