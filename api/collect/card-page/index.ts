import { createHash, randomBytes, randomInt } from 'node:crypto';
import { type OpenAPIHono, z } from '@hono/zod-openapi';
import { and, eq, isNull } from 'drizzle-orm';
import type { Context } from 'hono';
import { collectMerchants } from '../../../db/schema/collect.ts';
import { collectCardPages } from '../../../db/schema/collect-card-page.ts';
import { formatAmount } from '../../../domain/collect/amount.ts';
import { badField, CollectProtocolError, missingField } from '../../../domain/collect/errors.ts';
import { OnlinePaymentPayload, parsePayload } from '../../../domain/collect/payloads.ts';
import { type CardForm, sandboxDecision, validateCard } from '../../../domain/collect/test-cards.ts';
import { formatExpTime } from '../../../domain/collect/time.ts';
import { type CardPaymentDecision, cardPaymentUpdate } from '../../../workflows/collect/card-payment.ts';
import type { ApiDeps, AppEnv } from '../../shared/context.ts';
import {
  authenticate,
  authenticationErrors,
  findObligation,
  type Obligation,
  registerObligation,
  requestParams,
  updateObligation,
} from '../protocol.ts';
import { errorPage, layout, type PaymentView, paymentPage, type ResultView, resultPage } from './html.ts';

/**
 * The hosted card payment page (spec A.1, ePay.bg `PAGE=credit_paydirect`):
 *   POST /            the merchant's page posts PAGE, ENCODED, CHECKSUM, URL_OK, URL_CANCEL (a form the
 *                     customer's browser submits); the obligation `collect-<idn>` is registered and the
 *                     card form is answered;
 *   POST /card/pay    the form: pay (→ PAID, 303 to URL_OK), declined (→ DENIED, decline page linking to
 *                     URL_CANCEL) or cancel (→ DENIED, 303 to URL_CANCEL).
 * Each rendering carries a random single-use token (only its hash is stored): the form cannot be
 * posted from another site, and a paid page cannot be submitted again. docs/collect.md, decision 0013.
 */

type PageContext = Context<AppEnv>;
type CardPage = typeof collectCardPages.$inferSelect;

/** Errors of the page itself (beside the ENCODED protocol's codes). */
const PAGE_ERRORS = {
  PAGE_NOT_FOUND: { status: 404, message: 'This payment page does not exist.' },
  PAGE_USED: { status: 409, message: 'This payment page has already been used.' },
  PAGE_EXPIRED: { status: 410, message: 'This payment page has expired.' },
} as const;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** Headers of every page: never cached, never framed, no referrer to the merchant, one inline style. */
function pageHeaders(nonce: string, formTargets: (string | null | undefined)[] = []): Record<string, string> {
  // form-action also governs where the form's redirect may go, so the merchant's URLs are allowed.
  const origins = [
    ...new Set(formTargets.filter((url): url is string => !!url).map((url) => new URL(url).origin)),
  ];
  return {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'content-security-policy': [
      "default-src 'none'",
      `style-src 'nonce-${nonce}'`,
      `form-action 'self' ${origins.join(' ')}`.trim(),
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ].join('; '),
  };
}

function html(
  c: PageContext,
  status: number,
  title: string,
  body: (nonce: string) => string,
  formTargets: (string | null | undefined)[] = [],
): Response {
  const nonce = randomBytes(16).toString('base64');
  return c.body(layout({ title, nonce, body: body(nonce) }), status as 200, pageHeaders(nonce, formTargets));
}

function htmlError(
  c: PageContext,
  error: { code: string; status: number; message: string; field?: string | undefined },
) {
  return html(c, error.status, `Payment error ${error.code}`, () => errorPage(error));
}

/** Runs a page operation: protocol errors become an HTML error page with the code and its 4xx status. */
function pageHandler(operation: (c: PageContext, deps: ApiDeps) => Promise<Response>) {
  return async (c: PageContext): Promise<Response> => {
    const deps = c.get('deps');
    try {
      return await operation(c, deps);
    } catch (error) {
      if (error instanceof CollectProtocolError) {
        return htmlError(c, {
          code: error.code,
          status: error.status,
          message: error.message,
          field: error.field,
        });
      }
      deps.logger.error({ err: error, path: c.req.path }, 'card page failed');
      return htmlError(c, {
        code: 'INTERNAL',
        status: 500,
        message: 'Internal error; please try again later.',
      });
    }
  };
}

/** URL_OK / URL_CANCEL as a form field: an absolute http(s) URL. */
function returnUrl(value: string | undefined, field: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badField(field, 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badField(field, 'must be an http(s) URL');
  return url.toString();
}

const amountText = (obligation: Obligation) =>
  `${formatAmount(obligation.amountMinor)} ${obligation.currency}`;

async function merchantName(deps: ApiDeps, min: string): Promise<string> {
  const [row] = await deps.db
    .select({ name: collectMerchants.name })
    .from(collectMerchants)
    .where(eq(collectMerchants.min, min));
  return row?.name ?? min;
}

/** The page's form action: beside the page, wherever the gateway is mounted. */
function formAction(c: PageContext): string {
  const path = c.req.path.replace(/\/+$/, '');
  return path.endsWith('/card/pay') ? path : `${path}/card/pay`;
}

/** What a customer sees of an obligation that can no longer be paid on this page. */
function closedView(
  obligation: Obligation,
  page: { urlOk: string | null; urlCancel: string | null },
): ResultView & { status: number } {
  const back = (href: string | null) => (href ? { href, text: 'Return to the merchant' } : undefined);
  switch (obligation.status) {
    case 'PAID':
      return {
        status: 200,
        heading: 'Payment complete',
        message: `Invoice ${obligation.invoice} has been paid (${amountText(obligation)}).`,
        link: back(page.urlOk),
      };
    case 'EXPIRED':
      return {
        status: 409,
        heading: 'Payment expired',
        message: `Invoice ${obligation.invoice} can no longer be paid: its payment time has passed.`,
        link: back(page.urlCancel),
      };
    default:
      return {
        status: 409,
        heading: 'Payment not made',
        message: `Invoice ${obligation.invoice} was declined or cancelled and cannot be paid here.`,
        link: back(page.urlCancel),
      };
  }
}

async function renderForm(
  c: PageContext,
  deps: ApiDeps,
  obligation: Obligation,
  options: { token: string; urlOk: string | null; urlCancel: string | null; status?: number } & Pick<
    PaymentView,
    'values' | 'problems'
  >,
): Promise<Response> {
  const view: PaymentView = {
    merchantName: await merchantName(deps, obligation.merchantMin),
    invoice: obligation.invoice,
    amount: amountText(obligation),
    description: obligation.description ?? undefined,
    payableUntil: `${formatExpTime(obligation.expiresAt)} (Sofia time)`,
    token: options.token,
    action: formAction(c),
    ...(options.values ? { values: options.values } : {}),
    ...(options.problems ? { problems: options.problems } : {}),
  };
  return html(
    c,
    options.status ?? 200,
    `Pay ${view.amount} to ${view.merchantName}`,
    () => paymentPage(view),
    [options.urlOk, options.urlCancel],
  );
}

/** POST / : registers (or finds again) the obligation and answers a fresh card form for it. */
async function openPage(c: PageContext, deps: ApiDeps): Promise<Response> {
  const params = await requestParams(c);
  const page = params.PAGE;
  if (!page) throw missingField('PAGE');
  if (page.toLowerCase() !== 'credit_paydirect') {
    throw badField('PAGE', 'only credit_paydirect (card payment) is served by this gateway');
  }
  const { merchant, packet } = await authenticate(deps, params);
  const payment = parsePayload(OnlinePaymentPayload, packet);
  const urlOk = returnUrl(params.URL_OK, 'URL_OK') ?? payment.urlOk ?? null;
  const urlCancel = returnUrl(params.URL_CANCEL, 'URL_CANCEL') ?? payment.urlCancel ?? null;
  const { obligation } = await registerObligation(deps, {
    merchant,
    packet,
    kind: 'online_payment',
    terms: payment,
    defaultExpiryMs: deps.config.COLLECT_OBLIGATION_EXPIRY,
    details: {},
  });
  if (obligation.kind !== 'online_payment') {
    throw new CollectProtocolError(
      'DUPLICATE_INVOICE',
      `INVOICE ${obligation.invoice} is registered already for another kind of payment`,
      'INVOICE',
    );
  }
  // A packet posted again (back button, refresh) shows where its obligation stands.
  if (obligation.status !== 'PENDING' || obligation.expiresAt.getTime() <= Date.now()) {
    const view = closedView(obligation, { urlOk, urlCancel });
    return html(c, view.status, view.heading, () => resultPage(view));
  }
  const token = randomBytes(32).toString('base64url');
  const expiresAt = Math.min(Date.now() + deps.config.COLLECT_CARD_PAGE_TTL, obligation.expiresAt.getTime());
  await deps.db.insert(collectCardPages).values({
    tokenHash: sha256(token),
    idn: obligation.idn,
    urlOk,
    urlCancel,
    expiresAt: new Date(expiresAt),
  });
  return renderForm(c, deps, obligation, { token, urlOk, urlCancel });
}

/** Marks the page used; false when another submission got there first. */
async function consume(
  deps: ApiDeps,
  page: CardPage,
  outcome: 'paid' | 'declined' | 'cancelled',
): Promise<boolean> {
  const rows = await deps.db
    .update(collectCardPages)
    .set({ usedAt: new Date(), outcome })
    .where(and(eq(collectCardPages.tokenHash, page.tokenHash), isNull(collectCardPages.usedAt)))
    .returning({ tokenHash: collectCardPages.tokenHash });
  return rows.length > 0;
}

const pageError = (c: PageContext, code: keyof typeof PAGE_ERRORS) =>
  htmlError(c, { code, ...PAGE_ERRORS[code] });

/** Authorisation codes of a sandbox card payment: STAN (6 digits) and BCODE (6 characters). */
const authorisation = () => ({
  stan: String(randomInt(0, 1_000_000)).padStart(6, '0'),
  bcode: randomBytes(4).toString('hex').slice(0, 6).toUpperCase(),
});

const formText = (body: Record<string, unknown>, name: string) => {
  const value = body[name];
  return typeof value === 'string' ? value : '';
};

/** POST /card/pay : the customer's pay or cancel. */
async function submitPage(c: PageContext, deps: ApiDeps): Promise<Response> {
  const type = c.req.header('content-type') ?? '';
  const body =
    type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')
      ? await c.req.parseBody()
      : {};
  const token = formText(body, 'token');
  if (!token) throw missingField('token');
  const [page] = await deps.db
    .select()
    .from(collectCardPages)
    .where(eq(collectCardPages.tokenHash, sha256(token)));
  if (!page) return pageError(c, 'PAGE_NOT_FOUND');
  const obligation = await findObligation(deps, page.idn);
  if (!obligation) return pageError(c, 'PAGE_NOT_FOUND');
  if (page.usedAt) {
    const view = closedView(obligation, page);
    return html(c, PAGE_ERRORS.PAGE_USED.status, 'Payment page used', () =>
      resultPage({ ...view, heading: PAGE_ERRORS.PAGE_USED.message, code: 'PAGE_USED' }),
    );
  }
  if (obligation.status !== 'PENDING' || obligation.expiresAt.getTime() <= Date.now()) {
    const view = closedView(obligation, page);
    return html(c, view.status, view.heading, () => resultPage(view));
  }
  if (page.expiresAt.getTime() <= Date.now()) {
    return html(c, PAGE_ERRORS.PAGE_EXPIRED.status, 'Payment page expired', () =>
      resultPage({
        heading: PAGE_ERRORS.PAGE_EXPIRED.message,
        code: 'PAGE_EXPIRED',
        message: 'Return to the merchant and start the payment again.',
        link: page.urlCancel ? { href: page.urlCancel, text: 'Return to the merchant' } : undefined,
      }),
    );
  }

  const action = formText(body, 'action');
  if (action === 'cancel') {
    if (!(await consume(deps, page, 'cancelled'))) return pageError(c, 'PAGE_USED');
    await decide(deps, obligation, { outcome: 'cancelled' });
    if (page.urlCancel) return c.redirect(page.urlCancel, 303);
    return html(c, 200, 'Payment cancelled', () =>
      resultPage({ heading: 'Payment cancelled', message: `Invoice ${obligation.invoice} was not paid.` }),
    );
  }
  if (action !== 'pay') throw badField('action', 'must be pay or cancel');

  const form: CardForm = {
    number: formText(body, 'number'),
    expiry: formText(body, 'expiry'),
    cvv: formText(body, 'cvv'),
    holder: formText(body, 'holder'),
  };
  const checked = validateCard(form, new Date());
  if (checked.problems) {
    // The page stays usable: the customer corrects the card and submits the same form again.
    return renderForm(c, deps, obligation, {
      token,
      urlOk: page.urlOk,
      urlCancel: page.urlCancel,
      status: 422,
      values: form,
      problems: checked.problems,
    });
  }
  const decision = sandboxDecision(checked.card.number);
  if (!(await consume(deps, page, decision.outcome === 'approved' ? 'paid' : 'declined'))) {
    return pageError(c, 'PAGE_USED');
  }
  if (decision.outcome === 'approved') {
    await decide(deps, obligation, { outcome: 'approved', ...authorisation() });
    if (page.urlOk) return c.redirect(page.urlOk, 303);
    return html(c, 200, 'Payment complete', () =>
      resultPage({ heading: 'Payment complete', message: `Invoice ${obligation.invoice} has been paid.` }),
    );
  }
  await decide(deps, obligation, { outcome: 'declined', reason: decision.reason });
  return html(c, 200, 'Payment declined', () =>
    resultPage({
      heading: 'Payment declined',
      message: `Your card was declined: ${decision.reason}. Invoice ${obligation.invoice} was not paid.`,
      link: page.urlCancel ? { href: page.urlCancel, text: 'Return to the merchant' } : undefined,
    }),
  );
}

/** Moves the obligation through its workflow; a refusal (expired meanwhile, ...) is a protocol error. */
async function decide(deps: ApiDeps, obligation: Obligation, decision: CardPaymentDecision): Promise<void> {
  await updateObligation(deps, obligation, (handle) =>
    handle.executeUpdate(cardPaymentUpdate, { args: [decision] }),
  );
}

const htmlResponse = (description: string) => ({
  description,
  content: { 'text/html': { schema: z.string().openapi({ example: '<!doctype html>…' }) } },
});

export function registerCardPageRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/',
    tags: ['Card payment'],
    summary: 'Open the hosted card payment page (OnlinePaymentPayload)',
    description:
      'Posted by the customer’s browser from the merchant’s page (a form). Body fields: `PAGE=credit_paydirect`, ' +
      '`ENCODED` (packet: `MIN`, `INVOICE`, `AMOUNT`, optional `CURRENCY`, `EXP_TIME`, `DESCR`, `ENCODING=utf-8`), ' +
      '`CHECKSUM`, `URL_OK`, `URL_CANCEL`. Registers the obligation (`collect-<IDN>`, status PENDING; the same ' +
      'packet again finds the same obligation) and answers the card form. Errors answer an HTML page with the ' +
      `error code: ${[...authenticationErrors, 'DUPLICATE_INVOICE'].join(', ')}.`,
    request: {
      body: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: z.object({
              PAGE: z.literal('credit_paydirect'),
              ENCODED: z.string().openapi({ description: 'Base64 of the packet' }),
              CHECKSUM: z
                .string()
                .openapi({ description: 'HMAC-SHA1 hex of ENCODED with the merchant secret' }),
              URL_OK: z.string().optional().openapi({ description: 'Where the customer goes after paying' }),
              URL_CANCEL: z
                .string()
                .optional()
                .openapi({ description: 'Where the customer goes after cancelling or a decline' }),
            }),
          },
        },
      },
    },
    responses: {
      200: htmlResponse('The card form (or, for a packet posted again, where its payment stands)'),
      400: htmlResponse('MISSING_FIELD, BAD_FIELD, BAD_ENCODED'),
      401: htmlResponse('UNKNOWN_MERCHANT, BAD_CHECKSUM'),
      409: htmlResponse('DUPLICATE_INVOICE; or the payment is closed (expired, declined)'),
    },
  });
  app.openAPIRegistry.registerPath({
    method: 'post',
    path: '/card/pay',
    tags: ['Card payment'],
    summary: 'Submit the card form',
    description:
      'The form of the card page: `token` (single use), `action` (`pay` or `cancel`), `number`, `expiry` (MM/YY), ' +
      '`cvv`, `holder`. Approved → 303 to URL_OK (obligation PAID); declined → decline page (DENIED); ' +
      'cancel → 303 to URL_CANCEL (DENIED); invalid card details → 422 with the form again.',
    responses: {
      200: htmlResponse('Declined (or completed without URL_OK)'),
      303: { description: 'To URL_OK (paid) or URL_CANCEL (cancelled)' },
      404: htmlResponse('PAGE_NOT_FOUND'),
      409: htmlResponse('PAGE_USED; or the obligation is closed'),
      410: htmlResponse('PAGE_EXPIRED'),
      422: htmlResponse('Card details not valid: the form again, each problem next to its field'),
    },
  });
  const open = pageHandler(openPage);
  app.post('/', open);
  // Merchants post to `{base_url}/`, with the slash: a sub-app route '/' matches only the bare mount
  // path, so the slashed form is caught here (routePath is the mount path + `/*`).
  app.use('*', async (c, next) => {
    if (c.req.method === 'POST' && c.req.path === `${c.req.routePath.replace(/\/\*$/, '')}/`) return open(c);
    return next();
  });
  app.post('/card/pay', pageHandler(submitPage));
}
