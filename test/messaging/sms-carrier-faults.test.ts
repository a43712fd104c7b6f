import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeDeliveryReceipts } from '../../cmd/messaging/receipts.ts';
import type { SmsCarrier } from '../../connectors/messaging/carriers.ts';
import { smppCarrierIdentity } from '../../connectors/messaging/smpp-carrier.ts';
import { messagingMessages } from '../../db/schema/messaging.ts';
import type { DeliveryReceipt } from '../../domain/messaging/delivery-receipt.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { type AnswerJson, messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * The SMS process against a carrier that misbehaves: an SMSC that restarts its message-id counter (its
 * receipts must reach the message waiting for them, not an old one with the same id), and an SMSC that
 * refuses every bind (the message must end `failed`, with its report, after SMS_SUBMIT_TIMEOUT).
 */

const RECEIPT_TIMEOUT_S = 40;

let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({
    env: { SMS_RECEIPT_TIMEOUT: `${RECEIPT_TIMEOUT_S}s`, SMS_SUBMIT_TIMEOUT: '5s' },
  });
});
afterAll(async () => {
  await platform?.stop();
});

const api = messagingClient(() => platform);
const FINAL = ['delivered', 'undeliverable', 'expired', 'rejected', 'failed', 'unknown'];

/** The message once it has a final status; well before the receipt timeout could expire it. */
async function finalMessage(id: string, timeoutMs = 25_000): Promise<AnswerJson> {
  return eventually(
    async () => {
      const { json } = await api('GET', `/sms/${id}`);
      return FINAL.includes(json.status as string) ? json : undefined;
    },
    timeoutMs,
    `message ${id} to reach a final status`,
  );
}

async function send(to: string, extra: Record<string, unknown> = {}): Promise<string> {
  const { status, json } = await api('POST', '/sms', {
    body: { to, from: '+359888000111', message: `to ${to}`, ...extra },
  });
  expect(status).toBe(202);
  return json.id as string;
}

async function row(id: string) {
  const [found] = await platform.db.select().from(messagingMessages).where(eq(messagingMessages.id, id));
  return found!;
}

describe('an SMSC that restarts its message-id counter', () => {
  it('sends the receipt of a repeated carrier id to the message waiting for it', async () => {
    platform.sandbox.smpp.resetMessageIds(1);
    const a = await send('+359888125001');
    const doneA = await finalMessage(a);
    expect(doneA.status).toBe('delivered');

    platform.sandbox.smpp.resetMessageIds(1); // the SMSC restarted: B gets A's id again
    const b = await send('+359888125002');
    const doneB = await finalMessage(b);
    expect(doneB).toMatchObject({ status: 'delivered', error: null });

    expect((await row(a)).carrierMessageId).toBe('1');
    expect((await row(b)).carrierMessageId).toBe('1');
    // A is untouched by B's receipt.
    expect((await api('GET', `/sms/${a}`)).json).toEqual(doneA);
  });
});

/** A carrier that only delivers receipts, on demand, to the router under test; logs are kept. */
function receiptSource(identity: string, lookupPatienceMs: number) {
  let listener: ((receipt: DeliveryReceipt) => Promise<void>) | undefined;
  const carrier: SmsCarrier = {
    identity,
    submit: () => Promise.reject(new Error('not used')),
    onReceipt: (registered) => {
      listener = registered;
    },
    close: async () => {},
  };
  const logs: { msg: string; [field: string]: unknown }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line)) });
  routeDeliveryReceipts({ carrier, db: platform.db, client: platform.client, logger, lookupPatienceMs });
  return {
    logs,
    deliver: (carrierMessageId: string, status: 'delivered' | 'undeliverable') =>
      listener!({ carrierMessageId, status, carrierStatus: status === 'delivered' ? 'DELIVRD' : 'UNDELIV' }),
  };
}

describe('the receipt router', () => {
  it('matches the carrier as well as its id, and ignores a receipt that only a finished message has', async () => {
    platform.sandbox.smpp.resetMessageIds(500);
    const id = await send('+359888120001'); // …0001: the sandbox SMSC never sends its receipt
    await eventually(async () => ((await row(id)).status === 'submitted' ? true : undefined));
    const identity = smppCarrierIdentity(platform.config.SMPP_URL, platform.config.SMPP_SYSTEM_ID);
    expect(await row(id)).toMatchObject({ carrierMessageId: '500', carrier: identity });
    expect(identity).toMatch(/^smpp:\/\/platform@127\.0\.0\.1:\d+$/);

    // The same id from another SMSC (or another account on it) is another message's.
    const other = receiptSource('smpp://platform@10.0.0.9:2775', 300);
    await other.deliver('500', 'undeliverable');
    expect(other.logs.at(-1)?.msg).toBe('receipt for an unknown message; ignored');
    expect((await row(id)).status).toBe('submitted');

    const same = receiptSource(identity, 10_000);
    await same.deliver('500', 'delivered');
    const done = await finalMessage(id);
    expect(done.status).toBe('delivered');

    // Repeated once the message is finished: logged and ignored at once (no submission is in flight).
    const started = Date.now();
    await same.deliver('500', 'undeliverable');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(same.logs.at(-1)).toMatchObject({
      msg: 'receipt matches only a finished message; ignored',
      carrierMessageId: '500',
      finishedMessageId: id,
      finishedStatus: 'delivered',
    });
    expect((await api('GET', `/sms/${id}`)).json).toEqual(done);
  });
});

describe('an SMSC that refuses every bind', () => {
  it('ends the message failed after SMS_SUBMIT_TIMEOUT and reports it to dlrUrl', async () => {
    const receiver = await startReceiver();
    platform.sandbox.smpp.refuseBinds(true);
    try {
      const id = await send('+359888125010', { dlrUrl: receiver.url });
      const done = await finalMessage(id);
      expect(done.status).toBe('failed');
      expect(done.error).toMatch(/^carrier submission failed: SMPP bind refused: ESME_RBINDFAIL/);
      expect(done.submittedAt).toBeNull();
      await eventually(async () => (receiver.requests.length >= 1 ? true : undefined), 15_000, 'the report');
      expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({
        type: 'message.status',
        data: { id, status: 'failed', to: '+359888125010' },
      });
      expect(platform.sandbox.smpp.submitted.filter((sms) => sms.destination === '359888125010')).toEqual([]);
    } finally {
      platform.sandbox.smpp.refuseBinds(false);
      await receiver.stop();
    }
  });
});

describe('an SMSC that throttles a one-time code', () => {
  it('sends it again: an answered "not now" is not doubt (decision 0084), so the code is not ended unknown', async () => {
    platform.sandbox.smpp.throttle(1);
    const id = await send('+359888125011', { message: 'Your code is 123456', containsCode: true });
    const done = await finalMessage(id);
    expect(done.status).toBe('delivered');
    expect(
      platform.sandbox.smpp.submitted
        .filter((sms) => sms.destination === '359888125011')
        .map((sms) => sms.text),
    ).toEqual(['Your code is 123456']);
    // The mark of the throttled submission was cleared, then written again for the one the SMSC took.
    expect((await row(id)).wireAt).not.toBeNull();
  });
});
