import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { messagingMessages, messagingOutbox } from '../../db/schema/messaging.ts';
import { deliveredMessage, messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * Accepting a message on the default embedded stack (PGlite, `npm start` without DATABASE_URL): the row
 * and its outbox entry go in with one statement (decision 0066, amended 2026-11-28), whose rows PGlite
 * answers in its own shape. A text flagged containsCode is sealed in the outbox under the id made before
 * the statement, and reaches the carrier whole; a repeated Idempotency-Key answers the first message.
 */

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ database: 'pglite' });
});
afterAll(async () => {
  await platform?.stop();
});

const api = messagingClient(() => platform);

it('accepts an SMS with a code on PGlite, hands it over and delivers it whole, once per key', async () => {
  const message = '730145 is your code';
  const body = { to: '+359888125001', from: '+359888000111', message, containsCode: true };
  const headers = { 'idempotency-key': 'embedded-1' };
  const first = await api('POST', '/sms', { body, headers });
  expect(first.status).toBe(202);
  expect(first.json).toMatchObject({ status: 'accepted', to: '+359888125001', encoding: 'GSM-7', parts: 1 });
  const id = first.json.id as string;
  const done = await deliveredMessage(api, id);
  expect(done).toMatchObject({ containsCode: true, message: '****** is your code' });
  expect(platform.sandbox.smpp.submitted.filter((sms) => sms.destination === '359888125001')).toEqual([
    expect.objectContaining({ text: message }),
  ]);
  await eventually(
    async () =>
      (await platform.db.select().from(messagingOutbox).where(eq(messagingOutbox.messageId, id))).length === 0
        ? true
        : undefined,
    15_000,
    'its outbox entry deleted',
  );

  const again = await api('POST', '/sms', { body, headers });
  expect(again).toEqual(first);
  const other = await api('POST', '/sms', { body: { ...body, message: '111111 is your code' }, headers });
  expect(other.status).toBe(422);
  expect(other.json.error?.code).toBe('idempotency_key_reused');
  const rows = await platform.db
    .select()
    .from(messagingMessages)
    .where(eq(messagingMessages.to, '+359888125001'));
  expect(rows.map((row) => row.id)).toEqual([id]);
});

it('accepts a chat-app message on PGlite', async () => {
  const answer = await api('POST', '/chatapp', {
    body: { to: '+359888125002', from: '+359888000111', message: 'hello from the embedded stack' },
  });
  expect(answer.status, JSON.stringify(answer.json)).toBe(202);
  const [row] = await platform.db
    .select()
    .from(messagingMessages)
    .where(eq(messagingMessages.id, answer.json.id as string));
  expect(row).toMatchObject({ channel: 'chatapp', message: 'hello from the embedded stack' });
  expect(answer.json.createdAt).toBe(row?.createdAt.toISOString());
});
