import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const finalStatus = (id: string) =>
  eventually(async () => {
    const { json } = await api('GET', `/sms/${id}`);
    return ['delivered', 'undeliverable', 'expired', 'rejected', 'failed'].includes(json.status as string)
      ? json
      : undefined;
  });

describe('POST /chatapp', () => {
  it('sends through the chat-app provider and reports delivery to dlrUrl', async () => {
    const receiver = await startReceiver();
    try {
      const { status, json } = await api('POST', '/chatapp', {
        body: { to: '+359888123456', from: '+359888000111', message: 'Hello 👋', dlrUrl: receiver.url },
      });
      expect(status).toBe(202);
      expect(json).toMatchObject({ status: 'accepted', encoding: 'UTF-8', parts: 1, to: '+359888123456' });
      expect(await finalStatus(json.id as string)).toMatchObject({ channel: 'chatapp', status: 'delivered' });
      const report = await eventually(async () => receiver.requests[0]);
      expect(JSON.parse(report.body)).toMatchObject({
        type: 'message.status',
        data: { id: json.id, channel: 'chatapp', status: 'delivered' },
      });
      expect(platform.sandbox.http.chatAppMessages.filter((m) => m.idempotencyKey === json.id)).toHaveLength(
        1,
      );
    } finally {
      await receiver.stop();
    }
  });

  it('reports a recipient who is not on the chat app as undeliverable', async () => {
    const { json } = await api('POST', '/chatapp', {
      body: { to: '+359888120000', from: '+359888000111', message: 'Anyone?' },
    });
    expect(await finalStatus(json.id as string)).toMatchObject({
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
    const response = await api('POST', '/chatapp', { body });
    expect(response.status).toBe(status);
    expect(response.json.error?.code).toBe(code);
    expect(response.json.error?.fields?.map((f) => f.field)).toEqual([field]);
  });
});
