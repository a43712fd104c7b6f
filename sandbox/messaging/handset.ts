import { Hono } from 'hono';
import { html } from 'hono/html';
import type { SubmittedSms } from './smpp-carrier.ts';

/**
 * The sandbox "handset", like a provider's test console: every SMS the sandbox SMSC accepted, read per
 * destination number, newest first, on a small page (`GET /handset/{number}`) or as JSON
 * (`GET /handset/{number}.json`); `GET /handset` lists the numbers. An integrator reads the signing codes
 * (and any other SMS) here. A handset also sends an SMS to a number (`POST /handset/{number}/send` with
 * `{to, text}`, or the form on its page): the SMSC delivers it to the bound gateway as a deliver_sm
 * (decision 0087). Served by the sandbox HTTP providers only, which production mode never
 * starts. The number matches by its digits: `+359888123456` and `359888123456` are one handset.
 */

/** An SMS a handset sends (`repeat`: the SMSC delivers it twice, as after a lost deliver_sm_resp). */
export type HandsetSend = (sms: { from: string; to: string; text: string; repeat?: boolean }) => void;

export interface HandsetMessage {
  messageId: string;
  from: string;
  to: string;
  text: string;
  at: string;
}

const digitsOf = (value: string) => value.replace(/\D/g, '');
const PHONE = /^\+?\d{6,15}$/;

function messagesTo(submitted: readonly SubmittedSms[], number: string): HandsetMessage[] {
  const digits = digitsOf(number);
  return submitted
    .filter((sms) => digitsOf(sms.destination) === digits)
    .map((sms) => ({
      messageId: sms.messageId,
      from: sms.source,
      to: sms.destination,
      text: sms.text,
      at: sms.at.toISOString(),
    }))
    .reverse();
}

const page = (title: string, body: ReturnType<typeof html>) => html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${title}</title>
    <style>
      body { font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; }
      li { list-style: none; border: 1px solid #ccc; border-radius: 0.75rem; padding: 0.5rem 0.75rem; margin: 0.5rem 0; }
      .meta { color: #666; font-size: 0.8rem; }
      .text { white-space: pre-wrap; margin: 0.25rem 0 0; }
    </style>
  </head>
  <body>
    ${body}
  </body>
</html>`;

/** The handset routes, reading the SMSC's accepted submissions at each request. */
export function handsetRoutes(submitted: () => readonly SubmittedSms[], send?: HandsetSend): Hono {
  const app = new Hono();

  if (send) {
    app.post('/:number/send', async (c) => {
      const from = c.req.param('number');
      const form = c.req.header('content-type')?.startsWith('application/json')
        ? ((await c.req.json().catch(() => ({}))) as Record<string, unknown>)
        : ((await c.req.parseBody()) as Record<string, unknown>);
      const { to, text, repeat } = form;
      const fields = [
        ...(PHONE.test(from) ? [] : ['number']),
        ...(typeof to === 'string' && PHONE.test(to) ? [] : ['to']),
        ...(typeof text === 'string' && text.length > 0 && text.length <= 1000 ? [] : ['text']),
      ];
      if (fields.length > 0) {
        return c.json({ error: 'invalid_request', message: `check ${fields.join(', ')}`, fields }, 400);
      }
      send({
        from: `+${digitsOf(from)}`,
        to: `+${digitsOf(to as string)}`,
        text: text as string,
        repeat: repeat === true,
      });
      if (!c.req.header('content-type')?.startsWith('application/json'))
        return c.redirect(`/handset/${digitsOf(from)}`);
      return c.json({ from: `+${digitsOf(from)}`, to: `+${digitsOf(to as string)}`, text }, 202);
    });
  }

  app.get('/', (c) => {
    const counts = new Map<string, number>();
    for (const sms of submitted()) {
      const number = digitsOf(sms.destination);
      counts.set(number, (counts.get(number) ?? 0) + 1);
    }
    const numbers = [...counts].map(
      ([number, count]) => html`<li><a href="/handset/${number}">+${number}</a> (${count})</li>`,
    );
    return c.html(
      page(
        'Sandbox handset',
        html`<h1>Sandbox handset</h1>
          <p>Every SMS the sandbox SMSC accepted, by destination number.</p>
          <ul>
            ${numbers.length > 0 ? numbers : html`<li>No SMS yet.</li>`}
          </ul>`,
      ),
    );
  });

  app.get('/:number', (c) => {
    const asked = c.req.param('number');
    const json = asked.endsWith('.json');
    const number = json ? asked.slice(0, -'.json'.length) : asked;
    if (!/^\+?\d{6,15}$/.test(number)) {
      return c.json({ error: 'invalid_number', message: 'the number is 6 to 15 digits, + optional' }, 400);
    }
    const messages = messagesTo(submitted(), number);
    if (json) return c.json({ number: `+${digitsOf(number)}`, messages }, 200);
    const items = messages.map(
      (message) =>
        html`<li>
          <div class="meta">${message.from} · ${message.at}</div>
          <p class="text">${message.text}</p>
        </li>`,
    );
    return c.html(
      page(
        `Handset +${digitsOf(number)}`,
        html`<h1>Handset +${digitsOf(number)}</h1>
          <p><a href="/handset">All numbers</a> · <a href="/handset/${digitsOf(number)}.json">JSON</a></p>
          <form method="post" action="/handset/${digitsOf(number)}/send">
            <input name="to" placeholder="to +359…" required />
            <input name="text" placeholder="text (STOP, START…)" required />
            <button>Send</button>
          </form>
          <ul>
            ${items.length > 0 ? items : html`<li>No SMS to this number yet.</li>`}
          </ul>`,
      ),
    );
  });

  return app;
}
