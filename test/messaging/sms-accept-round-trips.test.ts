import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { messagingMessages } from '../../db/schema/messaging.ts';
import { type CountedApi, startCountedApi } from '../support/counted-api.ts';
import { deliveredMessage, messagingClient } from '../support/messaging-client.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * What accepting a message costs the API in SQL statements (issue 23, decision 0066 amended 2026-11-28),
 * counted on an API process of its own (test/support/counted-api.ts) with the credential and the sender cached: the row
 * and its outbox entry go in with one statement, without a begin and a commit; from a phone number, one
 * indexed read before it asks whether the handset sent STOP to that number (decision 0087). Set
 * ROUND_TRIPS_VERBOSE=1 to print every statement.
 */

let platform: TestPlatform;
let counted: CountedApi;

beforeAll(async () => {
  platform = await startTestPlatform();
  counted = await startCountedApi(platform);
});
afterAll(async () => {
  await counted?.stop();
  await platform?.stop();
});

const api = messagingClient(() => ({ ...platform, baseUrl: `${counted.apiUrl}/messaging` }));
const platformApi = messagingClient(() => platform);

async function countedSend(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const { answer, trips } = await counted.roundTripsOf(() => api('POST', '/sms', { body, headers }));
  if (process.env.ROUND_TRIPS_VERBOSE) console.log(trips.sql.join('\n'));
  return { answer, sql: trips.sql };
}

it('accepts an SMS with one SQL statement that writes the row and its outbox entry (after the opt-out read)', async () => {
  // The credential and the sender's grant are cached once the process listens for their changes
  // (decision 0065): the send is counted with both cached, as on a running site.
  for (let round = 0; round < 2; round += 1) {
    await countedSend({ to: '+359888124000', from: '+359888000111', message: 'warm-up' });
  }
  const body = { to: '+359888124001', from: '+359888000111', message: 'one round trip' };
  const { answer, sql } = await countedSend(body);
  expect(answer.status).toBe(202);
  expect(answer.json).toMatchObject({ status: 'accepted', to: '+359888124001', encoding: 'GSM-7', parts: 1 });
  expect(sql.filter((statement) => /^(begin|commit)\b/i.test(statement))).toEqual([]);
  // The opt-out read (the sender is a phone number), then the row with its outbox entry.
  expect(sql).toHaveLength(2);
  expect(sql[0]).toMatch(/messaging_opt_outs/);

  const id = answer.json.id as string;
  const [row] = await platform.db.select().from(messagingMessages).where(eq(messagingMessages.id, id));
  expect(row).toMatchObject({ message: 'one round trip', status: expect.any(String) });
  expect(answer.json.createdAt).toBe(row?.createdAt.toISOString());
  // The counted process runs no hand-over: its outbox entry, due at once, is taken by the platform's
  // poll, and the message is delivered.
  const delivered = await deliveredMessage(platformApi, id);
  expect(delivered).toMatchObject({ id, status: 'delivered' });
});

it('answers a repeated Idempotency-Key with the first message in two statements (after the opt-out read), and writes nothing', async () => {
  const body = { to: '+359888124002', from: '+359888000111', message: 'once' };
  const headers = { 'idempotency-key': 'round-trips-1' };
  const first = await countedSend(body, headers);
  expect(first.sql).toHaveLength(2);
  const again = await countedSend(body, headers);
  expect(again.answer.status).toBe(202);
  expect(again.answer.json).toEqual(first.answer.json);
  // The opt-out read; the insert that conflicted, then the first message read by account and key.
  expect(again.sql).toHaveLength(3);
  const rows = await platform.db
    .select()
    .from(messagingMessages)
    .where(eq(messagingMessages.to, '+359888124002'));
  expect(rows).toHaveLength(1);
  const reused = await countedSend({ ...body, message: 'another' }, headers);
  expect(reused.answer.status).toBe(422);
  expect(reused.answer.json.error?.code).toBe('idempotency_key_reused');
});
