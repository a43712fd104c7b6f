import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagingInboundMessages } from '../../db/schema/messaging-inbound.ts';
import { optOutKeywordOf } from '../../domain/messaging/inbound.ts';
import { type ReceivedRequest, startReceiver } from '../../sandbox/webhook-receiver.ts';
import { type AnswerJson, messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * Inbound SMS (issue 40 item 2, decision 0087): a deliver_sm that is not a receipt, sent by the sandbox
 * handset to a number the operator assigned to an account, becomes one `message.inbound` event at the
 * number's inbound URL, signed as Standard Webhooks (verified with the `standardwebhooks` library);
 * STOP / START keep the opt-out list that later sends respect.
 */

const ADMIN_TOKEN = 'admin-token-for-tests-0123456789abcdef';
const NUMBER = '+359888770001';
const HANDSET = '+359888555001';

let platform: TestPlatform;
const api = messagingClient(() => platform);
let receiver: Awaited<ReturnType<typeof startReceiver>>;

async function admin(method: string, path: string, body?: unknown) {
  const response = await fetch(`${platform.apiUrl}/admin${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as AnswerJson };
}

/** The sandbox handset sends an SMS, as a person would (POST /handset/{number}/send). */
async function handsetSends(from: string, to: string, text: string, options: { repeat?: boolean } = {}) {
  const response = await fetch(`${platform.sandbox.http.url}/handset/${from.replace('+', '')}/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ to, text, ...(options.repeat ? { repeat: true } : {}) }),
  });
  expect(response.status).toBe(202);
}

/** The events that reached the receiver, verified with the endpoint's secret as a customer would. */
async function verifiedEvents(): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const endpoints = await api('GET', '/webhooks/endpoints');
  const items = endpoints.json.items as { url: string; secret: string }[];
  const endpoint = items.find((item) => item.url === receiver.url);
  // The endpoint (and its secret) is made with the first delivery to the URL.
  if (!endpoint) return [];
  const webhook = new Webhook(endpoint.secret);
  return receiver.requests.map(
    (request: ReceivedRequest) =>
      webhook.verify(request.body, request.headers as Record<string, string>) as {
        type: string;
        data: Record<string, unknown>;
      },
  );
}

const eventsWith = async (text: string, count: number) =>
  eventually(
    async () => {
      const events = (await verifiedEvents()).filter((event) => event.data.text === text);
      return events.length >= count ? events : undefined;
    },
    20_000,
    `${count} event(s) "${text}"`,
  );

beforeAll(async () => {
  platform = await startTestPlatform({ env: { ADMIN_TOKEN } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.stop();
  await platform?.stop();
});

describe('numbers assigned by the operator', () => {
  it('assigns a number to an account, validated', async () => {
    const assigned = await admin('POST', `/messaging/accounts/${platform.accountId}/numbers`, {
      number: '+359 888 770 001',
      inboundUrl: receiver.url,
    });
    expect(assigned).toMatchObject({
      status: 201,
      json: { number: NUMBER, accountId: platform.accountId, inboundUrl: receiver.url },
    });
    // Again for the same account: the same assignment (its URL updated), not a second one.
    expect(
      await admin('POST', `/messaging/accounts/${platform.accountId}/numbers`, {
        number: NUMBER,
        inboundUrl: receiver.url,
      }),
    ).toMatchObject({ status: 200, json: { number: NUMBER } });

    const invalid = await admin('POST', `/messaging/accounts/${platform.accountId}/numbers`, {
      number: '12',
    });
    expect(invalid.status).toBe(400);
    expect(invalid.json.error?.fields?.[0]?.field).toBe('number');
    const unknown = await admin('POST', '/messaging/accounts/no-such-account/numbers', { number: NUMBER });
    expect(unknown).toMatchObject({ status: 404, json: { error: { code: 'not_found' } } });
    const other = await platform.issueToken();
    const taken = await admin('POST', `/messaging/accounts/${other.accountId}/numbers`, { number: NUMBER });
    expect(taken).toMatchObject({ status: 409, json: { error: { code: 'number_assigned' } } });
    const badUrl = await admin('POST', `/messaging/accounts/${platform.accountId}/numbers`, {
      number: '+359888770002',
      inboundUrl: 'ftp://example.com/x',
    });
    expect(badUrl.status).toBe(400);
    expect(badUrl.json.error?.fields?.[0]?.field).toBe('inboundUrl');

    // The account sees its numbers; another account does not.
    const mine = await api('GET', '/inbound/numbers');
    expect(mine).toMatchObject({
      status: 200,
      json: { items: [{ number: NUMBER, inboundUrl: receiver.url }] },
    });
    expect((await api('GET', '/inbound/numbers', { token: other.token })).json.items).toEqual([]);
  });
});

describe('an SMS sent to an assigned number', () => {
  it('is one verified message.inbound event at the number’s inbound URL, even when redelivered', async () => {
    await handsetSends(HANDSET, NUMBER, 'Hello there ✓', { repeat: true });
    const [event] = await eventsWith('Hello there ✓', 1);
    expect(event).toMatchObject({
      type: 'message.inbound',
      data: { from: HANDSET, to: NUMBER, text: 'Hello there ✓', keyword: null },
    });
    // The SMSC sent it twice (a lost deliver_sm_resp): still one message, one event.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect((await verifiedEvents()).filter((each) => each.data.text === 'Hello there ✓')).toHaveLength(1);
    const rows = await platform.db
      .select()
      .from(messagingInboundMessages)
      .where(eq(messagingInboundMessages.message, 'Hello there ✓'));
    expect(rows).toHaveLength(1);
  });

  it('to an unassigned number is stored and acknowledged, with no event', async () => {
    await handsetSends(HANDSET, '+359888779999', 'nobody home');
    await eventually(
      async () => {
        const rows = await platform.db
          .select()
          .from(messagingInboundMessages)
          .where(eq(messagingInboundMessages.message, 'nobody home'));
        return rows.length === 1 && rows[0]!.accountId === null ? true : undefined;
      },
      15_000,
      'the stored unassigned MO',
    );
    await handsetSends(HANDSET, NUMBER, 'after nobody');
    await eventsWith('after nobody', 1);
    expect((await verifiedEvents()).filter((each) => each.data.text === 'nobody home')).toEqual([]);
  });
});

describe('STOP and START', () => {
  const send = () => api('POST', '/sms', { body: { to: HANDSET, from: NUMBER, message: 'Offer!' } });

  it('STOP refuses the next send to that handset; START allows it again', async () => {
    expect((await send()).status).toBe(202);

    await handsetSends(HANDSET, NUMBER, ' Stop ');
    const [stop] = await eventsWith(' Stop ', 1);
    expect(stop!.data).toMatchObject({ keyword: 'stop' });
    const refused = await send();
    expect(refused.status).toBe(422);
    expect(refused.json.error).toMatchObject({
      code: 'recipient_opted_out',
      fields: [{ field: 'to' }],
    });
    expect((await api('GET', '/inbound/optOuts')).json).toMatchObject({
      items: [{ sender: NUMBER, recipient: HANDSET }],
    });
    // Another sender of the account may still send to the handset.
    expect(
      (await api('POST', '/sms', { body: { to: HANDSET, from: '+359888000111', message: 'Hi' } })).status,
    ).toBe(202);

    await handsetSends(HANDSET, NUMBER, 'START');
    const [start] = await eventsWith('START', 1);
    expect(start!.data).toMatchObject({ keyword: 'start' });
    expect((await send()).status).toBe(202);
    expect((await api('GET', '/inbound/optOuts')).json).toMatchObject({ items: [] });
  });
});

describe('opt-out keywords', () => {
  it('are the whole text, case and surrounding spaces aside, from a short list', () => {
    for (const text of ['STOP', 'stop', ' Stop\n', 'STOPALL', 'unsubscribe', 'Cancel', 'END', 'quit'])
      expect([text, optOutKeywordOf(text)]).toEqual([text, 'stop']);
    for (const text of ['START', 'start ', 'Unstop'])
      expect([text, optOutKeywordOf(text)]).toEqual([text, 'start']);
    for (const text of ['STOP please', 'don’t stop', 'YES', 'HELP', '', 'S T O P'])
      expect([text, optOutKeywordOf(text)]).toEqual([text, null]);
  });
});
