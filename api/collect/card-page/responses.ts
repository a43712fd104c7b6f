import { createHash, randomBytes } from 'node:crypto';
import { z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import type { Context } from 'hono';
import type { UseCaseDeps } from '../../../application/shared/deps.ts';
import { collectMerchants } from '../../../db/schema/collect.ts';
import { collectSavedCards } from '../../../db/schema/collect-saved-cards.ts';
import { formatAmount } from '../../../domain/collect/amount.ts';
import { CollectProtocolError } from '../../../domain/collect/errors.ts';
import { formatExpTime } from '../../../domain/epay-time.ts';
import type { AppEnv } from '../../shared/context.ts';
import type { Html } from '../../shared/html.ts';
import type { Obligation } from '../protocol.ts';
import { errorPage, layout, type PaymentView, paymentPage, type ResultView } from './html.ts';

/**
 * The answers of the hosted card page (spec A.1, ePay.bg `PAGE=credit_paydirect`), shared by its two
 * operations (POST / opens the page, POST /card/pay submits it): HTML pages with their headers, the
 * page errors, and what a customer sees of an obligation. docs/collect.md, decision 0013.
 */

export type PageContext = Context<AppEnv>;

/** Errors of the page itself (beside the ENCODED protocol's codes). */
export const PAGE_ERRORS = {
  PAGE_NOT_FOUND: { status: 404, message: 'This payment page does not exist.' },
  PAGE_USED: { status: 409, message: 'This payment page has already been used.' },
  PAGE_EXPIRED: { status: 410, message: 'This payment page has expired.' },
  /** The card acquirer could not be reached: nothing was decided, the same form may be sent again. */
  ACQUIRER_UNAVAILABLE: {
    status: 503,
    message: 'The card payment service is not available at the moment. Please try again shortly.',
  },
  /** The card acquirer refused the request itself (not the card): nothing was paid. */
  ACQUIRER_REFUSED: { status: 502, message: 'The card payment service refused the payment request.' },
} as const;

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

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

/** A page answer: a fresh CSP nonce for its style sheet, the page's headers, `body` in the layout. */
export async function pageAnswer(
  c: PageContext,
  status: number,
  title: string,
  body: Html,
  formTargets: (string | null | undefined)[] = [],
): Promise<Response> {
  const nonce = randomBytes(16).toString('base64');
  const page = String(await layout({ title, nonce, body }));
  return c.body(page, status as 200, pageHeaders(nonce, formTargets));
}

export function errorAnswer(
  c: PageContext,
  error: { code: string; status: number; message: string; field?: string | undefined },
): Promise<Response> {
  return pageAnswer(c, error.status, `Payment error ${error.code}`, errorPage(error));
}

export const pageError = (c: PageContext, code: keyof typeof PAGE_ERRORS) =>
  errorAnswer(c, { code, ...PAGE_ERRORS[code] });

/** Runs a page operation: protocol errors become an HTML error page with the code and its 4xx status. */
export function pageHandler(operation: (c: PageContext, deps: UseCaseDeps) => Promise<Response>) {
  return async (c: PageContext): Promise<Response> => {
    const deps = c.get('deps');
    try {
      return await operation(c, deps);
    } catch (error) {
      if (error instanceof CollectProtocolError) {
        return errorAnswer(c, {
          code: error.code,
          status: error.status,
          message: error.message,
          field: error.field,
        });
      }
      deps.logger.error({ err: error, path: c.req.path }, 'card page failed');
      return errorAnswer(c, {
        code: 'INTERNAL',
        status: 500,
        message: 'Internal error; please try again later.',
      });
    }
  };
}

const amountText = (obligation: Obligation) =>
  `${formatAmount(obligation.amountMinor)} ${obligation.currency}`;

async function merchantName(deps: UseCaseDeps, min: string): Promise<string> {
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

/** Where the card acquirer sends the customer back after the 3-D Secure page (GET /card/return). */
export function challengeReturnUrl(c: PageContext, baseUrl: string): string {
  const path = c.req.path.replace(/\/+$/, '').replace(/\/card\/pay$/, '');
  return `${baseUrl}${path}/card/return`;
}

/** The card an obligation's page saved (SAVECARD=1), as the customer is told of it. */
export async function savedCardOf(
  deps: UseCaseDeps,
  idn: string,
): Promise<{ brand: string; last4: string } | undefined> {
  const [card] = await deps.db
    .select({ brand: collectSavedCards.brand, last4: collectSavedCards.last4 })
    .from(collectSavedCards)
    .where(eq(collectSavedCards.idn, idn));
  return card;
}

/** What a customer sees of an obligation that can no longer be paid on this page. */
export function closedView(
  obligation: Obligation,
  page: { urlOk: string | null; urlCancel: string | null },
  savedCard?: { brand: string; last4: string },
): ResultView & { status: number } {
  const back = (href: string | null) => (href ? { href, text: 'Return to the merchant' } : undefined);
  const saved = savedCard
    ? ` Your ${savedCard.brand} card ending in ${savedCard.last4} was saved for later payments.`
    : '';
  switch (obligation.status) {
    case 'SAVED':
      return {
        status: 200,
        heading: 'Card saved',
        message: `Nothing was paid.${saved || ' Your card was saved for later payments.'}`,
        link: back(page.urlOk),
      };
    case 'HELD':
      return {
        status: 200,
        heading: 'Amount held',
        message: `${amountText(obligation)} is held on your card for invoice ${obligation.invoice}.`,
        link: back(page.urlOk),
      };
    case 'PAID':
      return {
        status: 200,
        heading: 'Payment complete',
        message: `Invoice ${obligation.invoice} has been paid (${amountText(obligation)}).${saved}`,
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

/** The card form of an open obligation (again, with the customer's problems, after a bad submission). */
export async function renderForm(
  c: PageContext,
  deps: UseCaseDeps,
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
    mode: obligation.kind === 'preauth' ? 'hold' : obligation.amountMinor === 0 ? 'save' : 'pay',
    saveCard: obligation.details.saveCard === '1',
    sandbox: deps.config.PLATFORM_MODE === 'sandbox',
    ...(options.values ? { values: options.values } : {}),
    ...(options.problems ? { problems: options.problems } : {}),
  };
  return pageAnswer(
    c,
    options.status ?? 200,
    view.mode === 'save'
      ? `Save your card with ${view.merchantName}`
      : `Pay ${view.amount} to ${view.merchantName}`,
    paymentPage(view),
    [options.urlOk, options.urlCancel],
  );
}

/** OpenAPI entry of an HTML answer. */
export const htmlResponse = (description: string) => ({
  description,
  content: { 'text/html': { schema: z.string().openapi({ example: '<!doctype html>…' }) } },
});
