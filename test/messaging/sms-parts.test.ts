import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concatenationReference } from '../../domain/messaging/segments.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * Long SMS to an SMSC that refuses `message_payload` (decision 0055): the gateway configured with
 * SMPP_LONG_MESSAGES `udh` or `sar` sends every part as a submit_sm of its own, the sandbox handset
 * shows the text once, each part's receipt arrives on its own, and the customer gets ONE report.
 */
describe.each(['udh', 'sar'] as const)('long SMS as %s parts', (mode) => {
  let platform: TestPlatform;
  const api = messagingClient(() => platform);

  beforeAll(async () => {
    platform = await startTestPlatform({ env: { SMPP_LONG_MESSAGES: mode } });
    platform.sandbox.smpp.refuseMessagePayload(true);
  });
  afterAll(async () => {
    await platform?.stop();
  });

  async function finalStatus(id: string) {
    return eventually(
      async () => {
        const { json } = await api('GET', `/sms/${id}`);
        return ['accepted', 'scheduled', 'sending', 'submitted'].includes(json.status as string)
          ? undefined
          : json;
      },
      30_000,
      `message ${id} to reach a final status`,
    );
  }

  const partsTo = (destination: string) =>
    platform.sandbox.smpp.submitted.filter((sms) => sms.destination === destination);

  async function handset(number: string) {
    const answer = await fetch(`${platform.sandbox.http.url}/handset/${number}.json`);
    return ((await answer.json()) as { messages: { text: string }[] }).messages.map(
      (message) => message.text,
    );
  }

  it('submits every part with its headers, shows the whole text once and reports once', async () => {
    const receiver = await startReceiver();
    try {
      const message = `${'Your loan statement is ready. '.repeat(10)}[ref] €`; // 306 septets: 3 parts
      const to = '359888123480';
      const { status, json } = await api('POST', '/sms', {
        body: { to: `+${to}`, from: '+359888000111', message, dlrUrl: receiver.url },
      });
      expect(status).toBe(202);
      expect(json).toMatchObject({ encoding: 'GSM-7', parts: 3 });
      const id = json.id as string;
      expect(await finalStatus(id)).toMatchObject({ status: 'delivered', parts: 3, error: null });

      const reference = concatenationReference(id, mode === 'udh' ? 8 : 16);
      expect(partsTo(to).map((sms) => sms.concatenation)).toEqual(
        [1, 2, 3].map((seq) => ({ reference, total: 3, seq, via: mode })),
      );
      expect(
        partsTo(to)
          .map((sms) => sms.text)
          .join(''),
      ).toBe(message);
      expect(await handset(to)).toEqual([message]);

      await eventually(async () => (receiver.requests.length > 0 ? true : undefined), 20_000, 'the report');
      await new Promise((resolve) => setTimeout(resolve, 1000)); // no second report may follow
      expect(receiver.requests).toHaveLength(1);
      expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({
        type: 'message.status',
        data: { id, status: 'delivered', parts: 3 },
      });
    } finally {
      await receiver.stop();
    }
  });

  it('sends UCS-2 parts without splitting an emoji', async () => {
    // 66 units, then the emoji (units 67-68) that does not fit a part of 67 (or 66): it opens part 2.
    const message = `${'Здравей '.repeat(8)}ЖЖ😀${'ок'.repeat(10)}`;
    const to = '359888123481';
    const { json } = await api('POST', '/sms', { body: { to: `+${to}`, from: '+359888000111', message } });
    expect(json).toMatchObject({ encoding: 'UCS-2', parts: 2 });
    expect(await finalStatus(json.id as string)).toMatchObject({ status: 'delivered' });
    const parts = partsTo(to);
    expect(parts.map((sms) => sms.dataCoding)).toEqual([0x08, 0x08]);
    expect(parts[1]?.text.startsWith('😀')).toBe(true);
    expect(await handset(to)).toEqual([message]);
  });

  it('re-sends the same parts under the same reference when a submission is retried', async () => {
    const message = 'x'.repeat(200);
    const to = '359888123482';
    platform.sandbox.smpp.throttle(1, 1); // the second part is throttled: the activity is retried
    const { json } = await api('POST', '/sms', { body: { to: `+${to}`, from: '+359888000111', message } });
    const id = json.id as string;
    expect(await finalStatus(id)).toMatchObject({ status: 'delivered', parts: 2 });
    const parts = partsTo(to);
    expect(parts.map((sms) => sms.concatenation?.seq)).toEqual([1, 1, 2]);
    expect(new Set(parts.map((sms) => sms.concatenation?.reference))).toEqual(
      new Set([concatenationReference(id, mode === 'udh' ? 8 : 16)]),
    );
    expect(await handset(to)).toEqual([message]);
  });

  it('reports a message undeliverable when its parts are', async () => {
    const receiver = await startReceiver();
    try {
      const { json } = await api('POST', '/sms', {
        body: { to: '+359888120000', from: '+359888000111', message: 'y'.repeat(170), dlrUrl: receiver.url },
      });
      expect(await finalStatus(json.id as string)).toMatchObject({ status: 'undeliverable', error: '001' });
      await eventually(async () => (receiver.requests.length > 0 ? true : undefined), 20_000, 'the report');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(receiver.requests).toHaveLength(1);
    } finally {
      await receiver.stop();
    }
  });
});
