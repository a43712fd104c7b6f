import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHttpParties, startHttpParties } from '../../sandbox/messaging/http-parties.ts';
import type { SubmittedSms } from '../../sandbox/messaging/smpp-carrier.ts';

/**
 * The sandbox handset (sandbox/messaging/handset.ts): what the sandbox SMSC accepted, per destination
 * number, newest first, as JSON and as a page that escapes the text. Fed here by a list standing for the
 * SMSC's `submitted` (test/lending/documents.test.ts reads a signing code at it through the whole platform).
 */

const submitted: SubmittedSms[] = [];
let made = 0;
const sms = (destination: string, text: string, at: string, source = 'LENDING'): SubmittedSms => ({
  messageId: `m${++made}`,
  source,
  destination,
  text,
  dataCoding: 0,
  at: new Date(at),
});

let parties: SandboxHttpParties;
let withoutHandset: SandboxHttpParties;
beforeAll(async () => {
  parties = await startHttpParties({ port: 0, handset: () => submitted });
  withoutHandset = await startHttpParties({ port: 0 });
});
afterAll(async () => {
  await parties?.stop();
  await withoutHandset?.stop();
});

describe('the sandbox handset', () => {
  it('answers the SMS to one number, newest first, whichever way the number is written', async () => {
    submitted.push(
      sms('359888123456', '111111 is your code', '2026-01-01T10:00:00Z'),
      sms('12025550143', 'someone else', '2026-01-01T10:00:01Z', 'ACME'),
      sms('+359888123456', '222222 is your code', '2026-01-01T10:00:02Z'),
    );
    for (const number of ['+359888123456', '359888123456']) {
      const answer = await fetch(`${parties.url}/handset/${number}.json`);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({
        number: '+359888123456',
        messages: [
          {
            messageId: 'm3',
            from: 'LENDING',
            to: '+359888123456',
            text: '222222 is your code',
            at: '2026-01-01T10:00:02.000Z',
          },
          {
            messageId: 'm1',
            from: 'LENDING',
            to: '359888123456',
            text: '111111 is your code',
            at: '2026-01-01T10:00:00.000Z',
          },
        ],
      });
    }
    // Read at each request: a later SMS is there on the next read.
    submitted.push(sms('12025550143', 'later', '2026-01-01T10:00:03Z'));
    const other = (await (await fetch(`${parties.url}/handset/12025550143.json`)).json()) as {
      messages: { text: string }[];
    };
    expect(other.messages.map((message) => message.text)).toEqual(['later', 'someone else']);
    const none = await fetch(`${parties.url}/handset/447700900000.json`);
    expect(await none.json()).toEqual({ number: '+447700900000', messages: [] });
  });

  it('shows them on a page that escapes the text, and lists the numbers', async () => {
    submitted.push(sms('447700900123', '<script>alert("x")</script> & 333333', '2026-01-01T11:00:00Z'));
    const answer = await fetch(`${parties.url}/handset/+447700900123`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/html');
    const page = await answer.text();
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; 333333');
    expect(page).not.toContain('<script>');
    expect(page).toContain('Handset +447700900123');
    const index = await (await fetch(`${parties.url}/handset`)).text();
    expect(index).toContain('href="/handset/447700900123"');
    expect(index).toContain('href="/handset/359888123456"');
  });

  it('refuses what is not a number, and is not there without an SMSC to read', async () => {
    const bad = await fetch(`${parties.url}/handset/abc.json`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: 'invalid_number' });
    expect((await fetch(`${withoutHandset.url}/handset/359888123456.json`)).status).toBe(404);
  });
});
