import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { type Html, html, htmlPage } from '../../api/shared/html.ts';
import type {
  AcquirerErrorCode,
  Authorisation,
  AuthorisationRequest,
} from '../../connectors/collect/acquirer.ts';
import { SANDBOX_TEST_CARDS, sandboxCardBehaviour } from '../../domain/collect/test-cards.ts';

/**
 * The sandbox card acquirer: a separate HTTP server speaking the acquirer protocol of
 * connectors/collect/acquirer.ts, with its test cards (domain/collect/test-cards.ts) and a hosted
 * 3-D Secure challenge page. It keeps its holds: a capture above the authorised amount is refused, a
 * void releases the hold, a refund gives back at most what was captured. Every /v1 request must carry
 * the configured `X-Api-Key` (compared in constant time); writing requests an `Idempotency-Key`.
 *
 *   GET  /challenge/{id}    the cardholder's 3-D Secure page (code SANDBOX_3DS_CODE passes, else fails)
 *   POST /challenge/{id}    its form → 303 to the gateway's returnUrl with `?authorisation={id}`
 */

/** The one-time code the sandbox issuer "sends" to the cardholder: shown on the page as a hint. */
export const SANDBOX_3DS_CODE = '123456';

export interface SandboxAcquirerOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** The API key the gateway must present. */
  apiKey: string;
  /** Where browsers reach the challenge page; default the listening URL. */
  publicUrl?: string | undefined;
}

interface Held extends Authorisation {
  returnUrl: string;
  /** When it was authorised (ms). */
  createdAt: number;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** Constant-time comparison of the presented key with the configured one (hashes: equal lengths). */
const sameKey = (expected: Buffer, presented: string | undefined) =>
  presented !== undefined && timingSafeEqual(expected, sha256(presented));

const authorisationRequest = z.object({
  reference: z.string().min(1).max(64),
  amountMinor: z.number().int().positive().max(1_000_000_000_000),
  currency: z.string().regex(/^[A-Z]{3}$/),
  card: z.object({
    number: z.string().regex(/^\d{12,19}$/),
    expiryMonth: z.number().int().min(1).max(12),
    expiryYear: z.number().int().min(2000).max(2100),
    cvv: z.string().regex(/^\d{3,4}$/),
    holder: z.string().max(100).optional(),
  }),
  returnUrl: z.string().url(),
});
const amountRequest = z.object({ amountMinor: z.number().int().positive().max(1_000_000_000_000) });

const STYLE = `body{font-family:system-ui,sans-serif;max-width:30rem;margin:3rem auto;padding:0 1rem;line-height:1.5}
label{display:block;font-weight:600;margin-top:1rem}input{font-size:1rem;padding:.5rem;width:100%;box-sizing:border-box}
button{margin:.8rem .5rem 0 0;padding:.6rem 1.2rem;font-size:1rem}.hint{color:#4b5563;font-size:.9rem}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}`;

export async function startSandboxAcquirer(options: SandboxAcquirerOptions) {
  const host = options.host ?? '127.0.0.1';
  const expectedKey = sha256(options.apiKey);
  const authorisations = new Map<string, Held>();
  /** `<operation>:<Idempotency-Key>` → the request's fingerprint and the first answer. */
  const idempotent = new Map<string, { fingerprint: string; status: number; body: Authorisation }>();
  /** Every /v1 request received (tests: count captures, see refused keys). */
  const requests: { method: string; path: string; status: number; idempotencyKey?: string }[] = [];
  let publicUrl = options.publicUrl?.replace(/\/+$/, '');
  /** Per operation: answers to lose after doing the operation (a network fault on the way back). */
  const lostAnswers = new Map<string, number>();

  const stan = () => String(randomInt(0, 1_000_000)).padStart(6, '0');
  const approvalCode = () => randomBytes(4).toString('hex').slice(0, 6).toUpperCase();
  const view = (held: Held): Authorisation => {
    const { returnUrl: _returnUrl, createdAt: _createdAt, ...authorisation } = held;
    return authorisation;
  };
  const refuse = (
    c: Context,
    status: 400 | 401 | 404 | 409 | 422,
    code: AcquirerErrorCode,
    message: string,
  ) => c.json({ error: { code, message } }, status);

  /** Runs a writing operation once per Idempotency-Key; the same key again answers the first answer. */
  async function once(
    c: Context,
    operation: string,
    body: unknown,
    run: () => { status: 200 | 201; body: Authorisation } | Response,
  ): Promise<Response> {
    const key = c.req.header('idempotency-key');
    if (!key || key.length > 200) return refuse(c, 400, 'bad_request', 'Idempotency-Key is required');
    const fingerprint = createHash('sha256')
      .update(`${c.req.path}\n${JSON.stringify(body)}`)
      .digest('hex');
    let answer = idempotent.get(`${operation}:${key}`);
    if (answer && answer.fingerprint !== fingerprint) {
      return refuse(c, 409, 'idempotency_conflict', 'this Idempotency-Key was used for another request');
    }
    if (!answer) {
      const outcome = run();
      if (outcome instanceof Response) return outcome;
      answer = { fingerprint, ...outcome };
      idempotent.set(`${operation}:${key}`, answer);
    }
    const lose = lostAnswers.get(operation) ?? 0;
    if (lose > 0) {
      lostAnswers.set(operation, lose - 1);
      return c.json({ error: { code: 'unavailable', message: 'answer lost (sandbox fault)' } }, 503);
    }
    return c.json(answer.body, answer.status as 200);
  }

  const app = new Hono();

  app.use('/v1/*', async (c, next) => {
    await next();
    const key = c.req.header('idempotency-key');
    requests.push({
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ...(key ? { idempotencyKey: key } : {}),
    });
  });
  app.use('/v1/*', async (c, next) => {
    if (!sameKey(expectedKey, c.req.header('x-api-key'))) {
      return refuse(c, 401, 'unauthorised', 'X-Api-Key is missing or not valid');
    }
    return next();
  });

  const readJson = async (c: Context): Promise<unknown> => {
    try {
      return await c.req.json();
    } catch {
      return undefined;
    }
  };

  app.post('/v1/authorisations', async (c) => {
    const body = await readJson(c);
    const parsed = authorisationRequest.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return refuse(
        c,
        400,
        'bad_request',
        `${issue?.path.join('.') ?? 'body'}: ${issue?.message ?? 'not valid'}`,
      );
    }
    const request: AuthorisationRequest = parsed.data;
    return once(c, 'authorise', request, () => {
      const behaviour = sandboxCardBehaviour(request.card.number);
      const id = `auth_${randomBytes(12).toString('hex')}`;
      const held: Held = {
        id,
        reference: request.reference,
        status: 'declined',
        amountMinor: request.amountMinor,
        currency: request.currency,
        capturedMinor: 0,
        refundedMinor: 0,
        cardLast4: request.card.number.slice(-4),
        returnUrl: request.returnUrl,
        createdAt: Date.now(),
      };
      if (behaviour.outcome === 'approved') {
        Object.assign(held, { status: 'authorised', stan: stan(), approvalCode: approvalCode() });
      } else if (behaviour.outcome === 'challenge') {
        Object.assign(held, { status: 'challenge_required', challengeUrl: `${publicUrl}/challenge/${id}` });
      } else {
        held.declineReason = behaviour.reason;
      }
      authorisations.set(id, held);
      return { status: 201, body: view(held) };
    });
  });

  app.get('/v1/authorisations/:id', (c) => {
    const held = authorisations.get(c.req.param('id'));
    if (!held) return refuse(c, 404, 'not_found', 'no such authorisation');
    return c.json(view(held), 200);
  });

  app.post('/v1/authorisations/:id/capture', async (c) => {
    const parsed = amountRequest.safeParse(await readJson(c));
    if (!parsed.success) return refuse(c, 400, 'bad_request', 'amountMinor: a positive whole number');
    const { amountMinor } = parsed.data;
    return once(c, 'capture', { id: c.req.param('id'), amountMinor }, () => {
      const held = authorisations.get(c.req.param('id'));
      if (!held) return refuse(c, 404, 'not_found', 'no such authorisation');
      if (held.status !== 'authorised') {
        return refuse(c, 409, 'invalid_state', `the authorisation is ${held.status}: nothing to capture`);
      }
      if (amountMinor > held.amountMinor) {
        return refuse(c, 422, 'amount_exceeds_authorisation', 'the amount exceeds the authorised amount');
      }
      // One capture per authorisation; what it leaves of the hold is released.
      Object.assign(held, {
        status: 'captured',
        capturedMinor: amountMinor,
        capture: { stan: stan(), amountMinor },
      });
      return { status: 200, body: view(held) };
    });
  });

  app.post('/v1/authorisations/:id/void', async (c) =>
    once(c, 'void', { id: c.req.param('id') }, () => {
      const held = authorisations.get(c.req.param('id'));
      if (!held) return refuse(c, 404, 'not_found', 'no such authorisation');
      if (held.status !== 'authorised' && held.status !== 'challenge_required') {
        return refuse(c, 409, 'invalid_state', `the authorisation is ${held.status}: nothing to void`);
      }
      held.status = 'voided';
      return { status: 200, body: view(held) };
    }),
  );

  app.post('/v1/authorisations/:id/refund', async (c) => {
    const parsed = amountRequest.safeParse(await readJson(c));
    if (!parsed.success) return refuse(c, 400, 'bad_request', 'amountMinor: a positive whole number');
    const { amountMinor } = parsed.data;
    return once(c, 'refund', { id: c.req.param('id'), amountMinor }, () => {
      const held = authorisations.get(c.req.param('id'));
      if (!held) return refuse(c, 404, 'not_found', 'no such authorisation');
      if (held.status !== 'captured') {
        return refuse(c, 409, 'invalid_state', `the authorisation is ${held.status}: nothing to refund`);
      }
      if (held.refundedMinor + amountMinor > held.capturedMinor) {
        return refuse(c, 422, 'amount_exceeds_captured', 'the amount exceeds what is left of the capture');
      }
      held.refundedMinor += amountMinor;
      return { status: 200, body: view(held) };
    });
  });

  // --- the cardholder's 3-D Secure challenge (a browser page) --------------------------------------

  const page = (c: Context, status: 200 | 404 | 409, title: string, body: Html) =>
    c.html(htmlPage({ title, body, style: STYLE, noindex: true }), status, {
      'cache-control': 'no-store',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
    });
  const back = (held: Held) => {
    const url = new URL(held.returnUrl);
    url.searchParams.set('authorisation', held.id);
    return url.toString();
  };
  const amountText = (held: Held) => `${(held.amountMinor / 100).toFixed(2)} ${held.currency}`;

  app.get('/challenge/:id', (c) => {
    const held = authorisations.get(c.req.param('id'));
    if (!held) return page(c, 404, 'Not found', html`<h1>No such payment</h1>`);
    if (held.status !== 'challenge_required') {
      return page(
        c,
        409,
        'Verification done',
        html`<h1>This payment has been verified already</h1><p><a href="${back(held)}">Return to the shop</a></p>`,
      );
    }
    return page(
      c,
      200,
      'Confirm your payment',
      html`<h1>Confirm your payment</h1>
<p>Sandbox Issuer Bank asks you to confirm a card payment of <strong id="amount">${amountText(held)}</strong>
with the card ending in <strong>${held.cardLast4}</strong>.</p>
<form method="post" action="/challenge/${held.id}">
<label for="code">Confirmation code</label>
<p class="hint" id="code-hint">Sandbox: the code is ${SANDBOX_3DS_CODE}; any other code fails the check.</p>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" aria-describedby="code-hint">
<button type="submit" name="action" value="confirm">Confirm</button>
<button type="submit" name="action" value="cancel">Cancel</button>
</form>`,
    );
  });

  app.post('/challenge/:id', async (c) => {
    const held = authorisations.get(c.req.param('id'));
    if (!held) return page(c, 404, 'Not found', html`<h1>No such payment</h1>`);
    if (held.status === 'challenge_required') {
      const form = await c.req.parseBody();
      const passed = form.action === 'confirm' && form.code === SANDBOX_3DS_CODE;
      if (passed) Object.assign(held, { status: 'authorised', stan: stan(), approvalCode: approvalCode() });
      else Object.assign(held, { status: 'declined', declineReason: '3-D Secure authentication failed' });
      held.challengeUrl = undefined;
    }
    return c.redirect(back(held), 303);
  });

  app.notFound((c) => c.json({ error: { code: 'not_found', message: 'not found' } }, 404));

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, port: options.port ?? 0, hostname: host }, () =>
      resolve(started),
    );
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host}:${port}`;
  publicUrl ??= url;

  return {
    url,
    port,
    publicUrl,
    /** The sandbox's test cards (docs/collect.md). */
    testCards: SANDBOX_TEST_CARDS,
    /** Every /v1 request received, in order. */
    requests,
    /** The next `count` answers of an operation are lost after it is done (tests: the caller must retry). */
    loseAnswers(operation: 'authorise' | 'capture' | 'void' | 'refund', count: number) {
      lostAnswers.set(operation, count);
    },
    /** An authorisation as the acquirer holds it (tests). */
    authorisation: (id: string): Authorisation | undefined => {
      const held = authorisations.get(id);
      return held ? view(held) : undefined;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}

export type SandboxAcquirer = Awaited<ReturnType<typeof startSandboxAcquirer>>;
