import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { type Html, html, htmlPage } from '../../api/shared/html.ts';
import type {
  AcquirerErrorCode,
  Authorisation,
  CardAuthorisationRequest,
  StoredCard,
  StoredCardAuthorisationRequest,
} from '../../connectors/collect/acquirer.ts';
import {
  SANDBOX_TEST_CARDS,
  sandboxCardBehaviour,
  sandboxStoredCardBehaviour,
  type TestCardBehaviour,
} from '../../domain/collect/test-cards.ts';

/**
 * The sandbox card acquirer: a separate HTTP server speaking the acquirer protocol of
 * connectors/collect/acquirer.ts, with its test cards (domain/collect/test-cards.ts) and a hosted
 * 3-D Secure challenge page. It keeps its holds: a capture above the authorised amount is refused, a
 * void releases the hold, a refund gives back at most what was captured. Every /v1 request must carry
 * the configured `X-Api-Key` (compared in constant time); writing requests an `Idempotency-Key`.
 * It stores cards (`storeCard`, zero-amount verifications) and charges them by token for the merchant
 * (`merchantInitiated`, no 3-D Secure): decision 0045.
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
  /** Absent for a merchant-initiated charge (no cardholder to send back). */
  returnUrl?: string | undefined;
  /** When it was authorised (ms). */
  createdAt: number;
  /** `storeCard`: the card to store once the authorisation is approved (never answered). */
  toStore?: CardNumber | undefined;
}

/** A card as the acquirer keeps it (never answered: only its token and description are). */
interface CardNumber {
  number: string;
  expiryMonth: number;
  expiryYear: number;
}

/** The card scheme of a number (lower case), by its well-known prefixes. */
export function cardBrandOf(number: string): string {
  const listed = SANDBOX_TEST_CARDS[number]?.brand;
  if (listed) return listed.toLowerCase();
  if (/^4/.test(number)) return 'visa';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  if (/^(6011|65|64[4-9])/.test(number)) return 'discover';
  if (/^35/.test(number)) return 'jcb';
  return 'unknown';
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** Constant-time comparison of the presented key with the configured one (hashes: equal lengths). */
const sameKey = (expected: Buffer, presented: string | undefined) =>
  presented !== undefined && timingSafeEqual(expected, sha256(presented));

const authorisationTerms = {
  reference: z.string().min(1).max(64),
  // 0 only with storeCard (a card verification): checked below.
  amountMinor: z.number().int().min(0).max(1_000_000_000_000),
  currency: z.string().regex(/^[A-Z]{3}$/),
};
const cardAuthorisationRequest = z
  .object({
    ...authorisationTerms,
    card: z.object({
      number: z.string().regex(/^\d{12,19}$/),
      expiryMonth: z.number().int().min(1).max(12),
      expiryYear: z.number().int().min(2000).max(2100),
      cvv: z.string().regex(/^\d{3,4}$/),
      holder: z.string().max(100).optional(),
    }),
    storeCard: z.boolean().optional(),
    returnUrl: z.string().url(),
  })
  .refine((request) => request.amountMinor > 0 || request.storeCard === true, {
    path: ['amountMinor'],
    message: 'must be positive (0 only with storeCard: true, a card verification)',
  });
const storedCardAuthorisationRequest = z.object({
  ...authorisationTerms,
  amountMinor: z.number().int().positive().max(1_000_000_000_000),
  cardToken: z.string().min(1).max(100),
  merchantInitiated: z.literal(true, {
    error: 'must be true: a stored card is charged by the merchant, without the cardholder',
  }),
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
  /** Stored cards by token (`storeCard`). */
  const storedCards = new Map<string, CardNumber & StoredCard>();
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
    const { returnUrl: _returnUrl, createdAt: _createdAt, toStore: _toStore, ...authorisation } = held;
    return authorisation;
  };
  /** Approves an authorisation; one with `storeCard` stores its card and answers the new token. */
  const approve = (held: Held) => {
    Object.assign(held, { status: 'authorised', stan: stan(), approvalCode: approvalCode() });
    if (held.toStore) {
      const cardToken = `tok_${randomBytes(12).toString('hex')}`;
      const card: StoredCard = {
        brand: cardBrandOf(held.toStore.number),
        last4: held.toStore.number.slice(-4),
        expiryMonth: held.toStore.expiryMonth,
        expiryYear: held.toStore.expiryYear,
      };
      storedCards.set(cardToken, { ...held.toStore, ...card });
      Object.assign(held, { cardToken, card, toStore: undefined });
    }
  };
  /** What the card's behaviour makes of a fresh authorisation. */
  const decide = (held: Held, behaviour: TestCardBehaviour) => {
    if (behaviour.outcome === 'approved') approve(held);
    else if (behaviour.outcome === 'challenge') {
      Object.assign(held, {
        status: 'challenge_required',
        challengeUrl: `${publicUrl}/challenge/${held.id}`,
      });
    } else {
      held.declineReason = behaviour.reason;
      held.toStore = undefined;
    }
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

  const badRequest = (c: Context, error: z.ZodError) => {
    const issue = error.issues[0];
    return refuse(
      c,
      400,
      'bad_request',
      `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'not valid'}`,
    );
  };
  const newHold = (
    request: { reference: string; amountMinor: number; currency: string },
    cardLast4: string,
  ): Held => ({
    id: `auth_${randomBytes(12).toString('hex')}`,
    reference: request.reference,
    status: 'declined',
    amountMinor: request.amountMinor,
    currency: request.currency,
    capturedMinor: 0,
    refundedMinor: 0,
    cardLast4,
    createdAt: Date.now(),
  });

  app.post('/v1/authorisations', async (c) => {
    const body = await readJson(c);
    // A stored card charged by the merchant: no cardholder, no 3-D Secure (decision 0045).
    if (body && typeof body === 'object' && 'cardToken' in body) {
      const parsed = storedCardAuthorisationRequest.safeParse(body);
      if (!parsed.success) return badRequest(c, parsed.error);
      const request: StoredCardAuthorisationRequest = parsed.data;
      return once(c, 'authorise', request, () => {
        const stored = storedCards.get(request.cardToken);
        if (!stored) return refuse(c, 404, 'unknown_card_token', 'no card is stored with this token');
        const held = newHold(request, stored.last4);
        const { brand, last4, expiryMonth, expiryYear } = stored;
        Object.assign(held, {
          merchantInitiated: true,
          cardToken: request.cardToken,
          card: { brand, last4, expiryMonth, expiryYear },
        });
        decide(held, sandboxStoredCardBehaviour(stored.number));
        authorisations.set(held.id, held);
        return { status: 201, body: view(held) };
      });
    }
    const parsed = cardAuthorisationRequest.safeParse(body);
    if (!parsed.success) return badRequest(c, parsed.error);
    const request: CardAuthorisationRequest = parsed.data;
    return once(c, 'authorise', request, () => {
      const held = newHold(request, request.card.number.slice(-4));
      held.returnUrl = request.returnUrl;
      if (request.storeCard) {
        const { number, expiryMonth, expiryYear } = request.card;
        held.toStore = { number, expiryMonth, expiryYear };
      }
      decide(held, sandboxCardBehaviour(request.card.number));
      authorisations.set(held.id, held);
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
    const url = new URL(held.returnUrl ?? publicUrl ?? '');
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
      if (passed) approve(held);
      else
        Object.assign(held, {
          status: 'declined',
          declineReason: '3-D Secure authentication failed',
          toStore: undefined,
        });
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
    /** The card a token stands for (tests), without its number. */
    storedCard: (cardToken: string): StoredCard | undefined => {
      const stored = storedCards.get(cardToken);
      if (!stored) return undefined;
      const { number: _number, ...card } = stored;
      return card;
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
