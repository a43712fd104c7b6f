import smpp, { type Pdu, type Session } from 'smpp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SmsCarrier } from '../../connectors/messaging/carriers.ts';
import { createSmppCarrier } from '../../connectors/messaging/smpp-carrier.ts';
import type { DeliveryReceipt } from '../../domain/messaging/delivery-receipt.ts';
import { concatenationReference } from '../../domain/messaging/segments.ts';
import {
  deliveryReceiptFromSmpp,
  formatSmppReceipt,
  parseSmppReceipt,
  receiptStatus,
  smppDateToIso,
} from '../../domain/messaging/smpp-receipt.ts';
import { createLogger } from '../../platform/logger.ts';
import { type SandboxSmppCarrier, startSmppCarrier } from '../../sandbox/messaging/smpp-carrier.ts';

const credentials = { systemId: 'gateway', password: 'secret' };
const logger = createLogger('silent');

async function waitFor<T>(probe: () => T | undefined, timeoutMs = 3000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('SMPP receipt text', () => {
  it('formats the standard receipt and parses it back', () => {
    const submitted = new Date('2025-03-07T09:15:42Z');
    const done = new Date('2025-03-07T09:16:05Z');
    const text = formatSmppReceipt({
      id: '9f2c01ab',
      stat: 'DELIVRD',
      err: 0,
      submitDate: submitted,
      doneDate: done,
      text: 'Your code is 123456, valid 5 minutes',
    });
    expect(text).toBe(
      'id:9f2c01ab sub:001 dlvrd:001 submit date:2503070915 done date:2503070916 stat:DELIVRD err:000 text:Your code is 123456,',
    );
    expect(parseSmppReceipt(text)).toEqual({
      id: '9f2c01ab',
      stat: 'DELIVRD',
      err: '000',
      submitDate: '2503070915',
      doneDate: '2503070916',
    });
    expect(deliveryReceiptFromSmpp(text)).toEqual({
      carrierMessageId: '9f2c01ab',
      status: 'delivered',
      carrierStatus: 'DELIVRD',
      doneAt: '2025-03-07T09:16:00.000Z',
    });
  });

  it('reads carriers that write seconds, lower case, and "stat:" inside the message text', () => {
    const parsed = parseSmppReceipt(
      'id:77 sub:001 dlvrd:000 submit date:250307091542 done date:250307091605 stat:undeliv err:034 Text:stat:DELIVRD',
    );
    expect(parsed).toEqual({
      id: '77',
      stat: 'UNDELIV',
      err: '034',
      submitDate: '250307091542',
      doneDate: '250307091605',
    });
    expect(smppDateToIso(parsed!.doneDate)).toBe('2025-03-07T09:16:05.000Z');
    expect(deliveryReceiptFromSmpp('id:77 stat:UNDELIV err:034 done date:2503070916', 'abc')).toEqual({
      carrierMessageId: 'abc',
      status: 'undeliverable',
      carrierStatus: 'UNDELIV',
      errorCode: '034',
      doneAt: '2025-03-07T09:16:00.000Z',
    });
  });

  it('refuses texts that are not receipts and dates that are not dates', () => {
    expect(parseSmppReceipt('Hello, see you at 5')).toBeUndefined();
    expect(parseSmppReceipt('id:12 sub:001 text:stat:DELIVRD')).toBeUndefined();
    expect(smppDateToIso('2502310916')).toBeUndefined();
    expect(smppDateToIso('25023109')).toBeUndefined();
  });

  it('maps carrier states to final statuses', () => {
    expect(
      ['DELIVRD', 'UNDELIV', 'EXPIRED', 'REJECTD', 'DELETED', 'UNKNOWN', 'ACCEPTD'].map(receiptStatus),
    ).toEqual(['delivered', 'undeliverable', 'expired', 'rejected', 'failed', 'failed', 'failed']);
  });
});

describe('SMPP carrier client against the sandbox SMSC', () => {
  let sandbox: SandboxSmppCarrier;
  const carriers: SmsCarrier[] = [];

  const carrier = (overrides: Partial<Parameters<typeof createSmppCarrier>[0]> = {}) => {
    const created = createSmppCarrier({
      url: sandbox.url,
      ...credentials,
      logger,
      submitTimeoutMs: 2000,
      reconnectMinMs: 50,
      reconnectMaxMs: 200,
      ...overrides,
    });
    carriers.push(created);
    return created;
  };

  const collectReceipts = (client: SmsCarrier) => {
    const receipts: DeliveryReceipt[] = [];
    client.onReceipt(async (receipt) => {
      receipts.push(receipt);
    });
    return receipts;
  };

  beforeEach(async () => {
    sandbox = await startSmppCarrier({ port: 0, ...credentials, receiptDelayMs: 50, receiptRetryMs: 100 });
  });

  afterEach(async () => {
    await Promise.all(carriers.splice(0).map((c) => c.close()));
    await sandbox.stop();
  });

  it('submits GSM-7 text and receives the DELIVRD receipt for the carrier message id', async () => {
    const client = carrier();
    const receipts = collectReceipts(client);
    const text = 'Your code is 123456. {Valid} for 5 min €';
    const result = await client.submit({
      messageId: 'm1',
      from: 'ACME Bank',
      to: '+359888123456',
      message: text,
    });
    expect(result.outcome).toBe('submitted');
    const carrierMessageId = (result as { carrierMessageId: string }).carrierMessageId;
    expect(sandbox.submitted).toEqual([
      {
        messageId: carrierMessageId,
        source: 'ACME Bank',
        destination: '359888123456',
        text,
        dataCoding: 0,
        at: expect.any(Date),
      },
    ]);

    const receipt = await waitFor(() => receipts.find((r) => r.carrierMessageId === carrierMessageId));
    expect(receipt).toMatchObject({ status: 'delivered', carrierStatus: 'DELIVRD' });
    expect(receipt.errorCode).toBeUndefined();
    expect(Math.abs(Date.parse(receipt.doneAt!) - Date.now())).toBeLessThan(120_000);
  });

  it('submits text outside GSM-7 as UCS-2, from a numeric sender', async () => {
    const client = carrier();
    const text = 'Здравей! Кодът е 4821 😀';
    const result = await client.submit({
      messageId: 'm2',
      from: '+359700100',
      to: '+359888123457',
      message: text,
    });
    expect(result.outcome).toBe('submitted');
    expect(sandbox.submitted[0]).toMatchObject({ source: '359700100', text, dataCoding: 8 });
  });

  it('carries a 3-segment message whole in message_payload (GSM-7 and UCS-2)', async () => {
    const client = carrier();
    const gsm = 'Loan agreement 42: '.padEnd(400, 'abcdefghij'); // 400 septets → 3 segments of 153
    const ucs = 'Договор за заем № 42, '.padEnd(150, 'абвгд'); // 150 units → 3 segments of 67
    await expect(
      client.submit({ messageId: 'm3', from: 'LENDER', to: '+359888123458', message: gsm }),
    ).resolves.toMatchObject({
      outcome: 'submitted',
    });
    await expect(
      client.submit({ messageId: 'm4', from: 'LENDER', to: '+359888123458', message: ucs }),
    ).resolves.toMatchObject({
      outcome: 'submitted',
    });
    expect(sandbox.submitted.map((s) => [s.text, s.dataCoding])).toEqual([
      [gsm, 0],
      [ucs, 8],
    ]);
  });

  it('reports UNDELIV for a destination ending in 0000 and no receipt for one ending in 0001', async () => {
    const client = carrier();
    const receipts = collectReceipts(client);
    const lost = await client.submit({
      messageId: 'lost',
      from: 'ACME',
      to: '+359888110001',
      message: 'lost',
    });
    const failed = await client.submit({
      messageId: 'undeliv',
      from: 'ACME',
      to: '+359888110000',
      message: 'no',
    });
    const ok = await client.submit({ messageId: 'ok', from: 'ACME', to: '+359888110002', message: 'yes' });
    const id = (r: typeof ok) => (r as { carrierMessageId: string }).carrierMessageId;

    await waitFor(() => receipts.find((r) => r.carrierMessageId === id(ok)));
    await waitFor(() => receipts.find((r) => r.carrierMessageId === id(failed)));
    await sleep(200);
    expect(receipts.find((r) => r.carrierMessageId === id(failed))).toMatchObject({
      status: 'undeliverable',
      carrierStatus: 'UNDELIV',
      errorCode: '001',
    });
    expect(receipts.map((r) => r.carrierMessageId)).not.toContain(id(lost));
    expect(receipts).toHaveLength(2);
  });

  it('returns rejected for an invalid destination, without retrying', async () => {
    const client = carrier();
    const result = await client.submit({ messageId: 'm5', from: 'ACME', to: '12345', message: 'hi' });
    expect(result).toEqual({ outcome: 'rejected', error: 'ESME_RINVDSTADR (0x0B)' });
    expect(sandbox.submitted).toHaveLength(0);
  });

  it('throws (so the activity retries) when the bind is refused', async () => {
    const client = carrier({ password: 'wrong' });
    await expect(
      client.submit({ messageId: 'm6', from: 'ACME', to: '+359888123456', message: 'hi' }),
    ).rejects.toThrow('SMPP bind refused: ESME_RBINDFAIL (0x0D)');
    expect(sandbox.submitted).toHaveLength(0);
  });

  it('delivers receipts queued while no session was bound once a client binds again', async () => {
    const first = carrier();
    const sent = await first.submit({
      messageId: 'm7',
      from: 'ACME',
      to: '+359888123459',
      message: 'while away',
    });
    await first.close(); // the worker stops before the receipt is due
    await sleep(150);

    const second = carrier();
    const receipts = collectReceipts(second); // registering the listener binds
    const receipt = await waitFor(() => receipts[0]);
    expect(receipt).toMatchObject({
      carrierMessageId: (sent as { carrierMessageId: string }).carrierMessageId,
      status: 'delivered',
    });
  });

  it('has the receipt sent again when the listener fails, and answers deliver_sm either way', async () => {
    const client = carrier();
    let calls = 0;
    const receipts: DeliveryReceipt[] = [];
    client.onReceipt(async (receipt) => {
      calls += 1;
      if (calls === 1) throw new Error('database unavailable');
      receipts.push(receipt);
    });
    const sent = await client.submit({
      messageId: 'm8',
      from: 'ACME',
      to: '+359888123450',
      message: 'retry me',
    });
    const receipt = await waitFor(() => receipts[0]);
    expect(receipt.carrierMessageId).toBe((sent as { carrierMessageId: string }).carrierMessageId);
    expect(calls).toBe(2);
  });

  it('binds again after the SMSC restarts; a submission while it is down throws', async () => {
    const client = carrier();
    const receipts = collectReceipts(client);
    await client.submit({ messageId: 'm9', from: 'ACME', to: '+359888123451', message: 'before' });
    const port = sandbox.port;
    await sandbox.stop();
    await expect(
      client.submit({ messageId: 'm10', from: 'ACME', to: '+359888123452', message: 'down' }),
    ).rejects.toThrow();

    sandbox = await startSmppCarrier({ port, ...credentials, receiptDelayMs: 50 });
    const after = await waitFor(() => sandbox.submitted[0] ?? undefined, 100).catch(() => undefined);
    expect(after).toBeUndefined();
    // The kept session comes back by itself (receipts need it even when nothing is submitted).
    await sleep(500);
    const result = await client.submit({
      messageId: 'm11',
      from: 'ACME',
      to: '+359888123453',
      message: 'after',
    });
    expect(result.outcome).toBe('submitted');
    await waitFor(() =>
      receipts.find((r) => r.carrierMessageId === (result as { carrierMessageId: string }).carrierMessageId),
    );
  });

  describe('long messages to an SMSC that refuses message_payload (decision 0055)', () => {
    const long = `${'Long message. '.repeat(20)}{end}`; // 290 septets: two parts of 153
    const destination = '359888123470';

    it("is rejected in message_payload mode with the SMSC's ESME_RINVTLVSTREAM", async () => {
      sandbox.refuseMessagePayload(true);
      const result = await carrier().submit({
        messageId: 'm-payload',
        from: 'ACME',
        to: `+${destination}`,
        message: long,
      });
      expect(result).toEqual({ outcome: 'rejected', error: 'ESME_RINVTLVSTREAM (0xC0)' });
    });

    it.each([8, 16] as const)(
      'goes as UDH parts (%i-bit reference), shown whole once, one receipt per part',
      async (bits) => {
        sandbox.refuseMessagePayload(true);
        const client = carrier({ longMessages: 'udh', udhReferenceBits: bits });
        const receipts = collectReceipts(client);
        const result = await client.submit({
          messageId: 'm-udh',
          from: 'ACME',
          to: `+${destination}`,
          message: long,
        });
        if (result.outcome !== 'submitted') throw new Error(result.error);
        expect(result.carrierPartIds).toHaveLength(2);
        expect(result.carrierMessageId).toBe(result.carrierPartIds?.[0]);
        const reference = concatenationReference('m-udh', bits);
        expect(sandbox.submitted.map((sms) => sms.concatenation)).toEqual([
          { reference, total: 2, seq: 1, via: 'udh' },
          { reference, total: 2, seq: 2, via: 'udh' },
        ]);
        expect(sandbox.submitted.map((sms) => sms.text).join('')).toBe(long);
        expect(sandbox.handset.map((sms) => sms.text)).toEqual([long]);
        await waitFor(() => (receipts.length === 2 ? true : undefined));
        expect(receipts.map((receipt) => receipt.carrierMessageId).sort()).toEqual(
          [...result.carrierPartIds!].sort(),
        );

        // A retried submission sends the same parts under the same reference: the handset shows it once.
        const again = await client.submit({
          messageId: 'm-udh',
          from: 'ACME',
          to: `+${destination}`,
          message: long,
        });
        expect(again.outcome).toBe('submitted');
        expect(sandbox.submitted.map((sms) => sms.concatenation?.reference)).toEqual(
          Array(4).fill(reference),
        );
        expect(sandbox.handset).toHaveLength(1);
      },
    );

    it('goes as SAR parts in UCS-2 without splitting an emoji', async () => {
      sandbox.refuseMessagePayload(true);
      const text = `${'Ж'.repeat(66)}😀${'Ж'.repeat(10)}`;
      const client = carrier({ longMessages: 'sar' });
      const result = await client.submit({
        messageId: 'm-sar',
        from: 'ACME',
        to: `+${destination}`,
        message: text,
      });
      expect(result).toMatchObject({
        outcome: 'submitted',
        carrierPartIds: [expect.any(String), expect.any(String)],
      });
      const reference = concatenationReference('m-sar', 16);
      expect(sandbox.submitted.map((sms) => [sms.concatenation, sms.dataCoding])).toEqual([
        [{ reference, total: 2, seq: 1, via: 'sar' }, 0x08],
        [{ reference, total: 2, seq: 2, via: 'sar' }, 0x08],
      ]);
      expect(sandbox.submitted[1]?.text.startsWith('😀')).toBe(true);
      expect(sandbox.handset.map((sms) => sms.text)).toEqual([text]);
    });

    it('retries a part the SMSC throttled by throwing (the activity sends the same parts again)', async () => {
      sandbox.throttle(1, 1);
      const client = carrier({ longMessages: 'udh' });
      await expect(
        client.submit({ messageId: 'm-throttled', from: 'ACME', to: `+${destination}`, message: long }),
      ).rejects.toThrow(/ESME_RTHROTTLED/);
      expect(sandbox.handset).toHaveLength(0);
      const result = await client.submit({
        messageId: 'm-throttled',
        from: 'ACME',
        to: `+${destination}`,
        message: long,
      });
      expect(result.outcome).toBe('submitted');
      expect(new Set(sandbox.submitted.map((sms) => sms.concatenation?.reference))).toEqual(
        new Set([concatenationReference('m-throttled', 8)]),
      );
      expect(sandbox.handset.map((sms) => sms.text)).toEqual([long]);
    });
  });
});

describe('sandbox SMSC protocol', () => {
  let sandbox: SandboxSmppCarrier;
  let session: Session;

  beforeEach(async () => {
    sandbox = await startSmppCarrier({ port: 0, ...credentials });
    session = smpp.connect({ url: sandbox.url });
    session.on('error', () => {});
    await new Promise((resolve) => session.once('connect', resolve));
  });

  afterEach(async () => {
    session.destroy();
    await sandbox.stop();
  });

  const call = (send: (callback: (pdu: Pdu) => void) => void) => new Promise<Pdu>((resolve) => send(resolve));
  const submit = { source_addr: 'ACME', destination_addr: '359888123456', short_message: 'hi' };

  it('refuses submit_sm before bind, answers enquire_link, and accepts after bind', async () => {
    expect((await call((cb) => session.submit_sm(submit, cb))).command_status).toBe(
      smpp.errors.ESME_RINVBNDSTS,
    );
    expect((await call((cb) => session.enquire_link({}, cb))).command).toBe('enquire_link_resp');
    const bind = await call((cb) =>
      session.bind_transceiver({ system_id: 'gateway', password: 'secret' }, cb),
    );
    expect(bind.command_status).toBe(0);
    const again = await call((cb) =>
      session.bind_transceiver({ system_id: 'gateway', password: 'secret' }, cb),
    );
    expect(again.command_status).toBe(smpp.errors.ESME_RALYBND);
    const accepted = await call((cb) => session.submit_sm(submit, cb));
    expect(accepted.command_status).toBe(0);
    expect(accepted.message_id).toMatch(/^[0-9a-f]{16}$/);
    const unbind = await call((cb) => session.unbind({}, cb));
    expect(unbind.command).toBe('unbind_resp');
  });

  it('holds submit_sm_resp while asked: sent on release, never sent once the session closed', async () => {
    const bind = { system_id: 'gateway', password: 'secret' };
    expect((await call((cb) => session.bind_transceiver(bind, cb))).command_status).toBe(0);
    sandbox.holdSubmitResponses(true);
    let answered: Pdu | undefined;
    session.submit_sm({ ...submit, destination_addr: '359888123461' }, (pdu) => {
      answered = pdu;
    });
    await waitFor(() => (sandbox.submitted.length === 1 ? true : undefined));
    await sleep(100);
    expect(answered).toBeUndefined(); // the SMSC has the message; the client does not know yet
    sandbox.holdSubmitResponses(false);
    const released = await waitFor(() => answered);
    expect(released.message_id).toBe(sandbox.submitted[0]?.messageId);

    sandbox.holdSubmitResponses(true);
    session.submit_sm({ ...submit, destination_addr: '359888123462' }, () => {});
    await waitFor(() => (sandbox.submitted.length === 2 ? true : undefined));
    session.destroy();
    await waitFor(() => (sandbox.unanswered.length === 1 ? true : undefined));
    expect(sandbox.unanswered[0]?.destination).toBe('359888123462');
    expect(sandbox.handset.map((sms) => sms.destination)).toEqual(['359888123461', '359888123462']);
  });

  it('refuses a bind with a wrong system_id or password', async () => {
    const bind = await call((cb) => session.bind_transceiver({ system_id: 'gateway', password: 'nope' }, cb));
    expect(bind.command_status).toBe(smpp.errors.ESME_RBINDFAIL);
  });
});
