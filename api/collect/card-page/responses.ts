import { randomBytes } from 'node:crypto';
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type {
  CardFormSubject,
  CardPageOutcome,
  Obligation,
  PageErrorCode,
  ReturnUrls,
  SavedCardNote,
} from '../../../application/collect/index.ts';
import type { UseCaseDeps } from '../../../application/shared/deps.ts';
import { formatAmount } from '../../../domain/collect/amount.ts';
import { CollectProtocolError } from '../../../domain/collect/errors.ts';
import { formatExpTime } from '../../../domain/epay-time.ts';
import type { AppEnv } from '../../shared/context.ts';
import type { Html } from '../../shared/html.ts';
import { errorPage, layout, type PaymentView, paymentPage, type ResultView, resultPage } from './html.ts';

/**
 * The answers of the hosted card page (spec A.1, ePay.bg `PAGE=credit_paydirect`), shared by its two
 * operations (POST / opens the page, POST /card/pay submits it): HTML pages with their headers, the
 * page errors, and what a customer sees of an obligation (the use cases' CardPageOutcome).
 * docs/collect.md, decision 0013.
 */

export type PageContext = Context<AppEnv>;

/** Errors of the page itself (beside the ENCODED protocol's codes). */
export const PAGE_ERRORS: Record<PageErrorCode, { status: number; message: string }> = {
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

const backLink = (href: string | null) => (href ? { href, text: 'Return to the merchant' } : undefined);

/** What a customer sees of an obligation that can no longer be paid on this page. */
export function closedView(
  obligation: Obligation,
  page: ReturnUrls,
  savedCard?: SavedCardNote,
): ResultView & { status: number } {
  const saved = savedCard
    ? ` Your ${savedCard.brand} card ending in ${savedCard.last4} was saved for later payments.`
    : '';
  switch (obligation.status) {
    case 'SAVED':
      return {
        status: 200,
        heading: 'Card saved',
        message: `Nothing was paid.${saved || ' Your card was saved for later payments.'}`,
        link: backLink(page.urlOk),
      };
    case 'HELD':
      return {
        status: 200,
        heading: 'Amount held',
        message: `${amountText(obligation)} is held on your card for invoice ${obligation.invoice}.`,
        link: backLink(page.urlOk),
      };
    case 'PAID':
      return {
        status: 200,
        heading: 'Payment complete',
        message: `Invoice ${obligation.invoice} has been paid (${amountText(obligation)}).${saved}`,
        link: backLink(page.urlOk),
      };
    case 'EXPIRED':
      return {
        status: 409,
        heading: 'Payment expired',
        message: `Invoice ${obligation.invoice} can no longer be paid: its payment time has passed.`,
        link: backLink(page.urlCancel),
      };
    default:
      return {
        status: 409,
        heading: 'Payment not made',
        message: `Invoice ${obligation.invoice} was declined or cancelled and cannot be paid here.`,
        link: backLink(page.urlCancel),
      };
  }
}

/** The card form of an open obligation (again, with the customer's problems, after a bad submission). */
async function renderForm(
  c: PageContext,
  { obligation, merchantName }: CardFormSubject,
  options: { token: string; urlOk: string | null; urlCancel: string | null; status?: number } & Pick<
    PaymentView,
    'values' | 'problems'
  >,
): Promise<Response> {
  const view: PaymentView = {
    merchantName,
    invoice: obligation.invoice,
    amount: amountText(obligation),
    description: obligation.description ?? undefined,
    payableUntil: `${formatExpTime(obligation.expiresAt)} (Sofia time)`,
    token: options.token,
    action: formAction(c),
    mode: obligation.kind === 'preauth' ? 'hold' : obligation.amountMinor === 0 ? 'save' : 'pay',
    saveCard: obligation.details.saveCard === '1',
    sandbox: c.get('deps').config.PLATFORM_MODE === 'sandbox',
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

/** What the customer is shown, as the page's HTML answer (or a redirect back to the merchant). */
export function answerCardPage(c: PageContext, outcome: CardPageOutcome): Promise<Response> | Response {
  switch (outcome.type) {
    case 'form':
      return renderForm(c, outcome.subject, {
        token: outcome.token,
        ...outcome.page,
        ...(outcome.invalid ? { status: 422, ...outcome.invalid } : {}),
      });
    case 'closed': {
      const view = closedView(outcome.obligation, outcome.page, outcome.savedCard);
      return pageAnswer(c, view.status, view.heading, resultPage(view));
    }
    case 'used': {
      const view = closedView(outcome.obligation, outcome.page);
      return pageAnswer(
        c,
        PAGE_ERRORS.PAGE_USED.status,
        'Payment page used',
        resultPage({ ...view, heading: PAGE_ERRORS.PAGE_USED.message, code: 'PAGE_USED' }),
      );
    }
    case 'error':
      return pageError(c, outcome.code);
    case 'page_expired':
      return pageAnswer(
        c,
        PAGE_ERRORS.PAGE_EXPIRED.status,
        'Payment page expired',
        resultPage({
          heading: PAGE_ERRORS.PAGE_EXPIRED.message,
          code: 'PAGE_EXPIRED',
          message: 'Return to the merchant and start the payment again.',
          link: backLink(outcome.page.urlCancel),
        }),
      );
    case 'redirect':
      return c.redirect(outcome.url, 303);
    case 'cancelled':
      return pageAnswer(
        c,
        200,
        'Payment cancelled',
        resultPage({ heading: 'Payment cancelled', message: `Invoice ${outcome.invoice} was not paid.` }),
      );
    case 'challenge':
      // A link, not a redirect: the page's CSP (form-action) names only the gateway and the merchant.
      return pageAnswer(
        c,
        200,
        'Confirm the payment with your bank',
        resultPage({
          heading: 'Confirm the payment with your bank',
          message: 'Your card issuer asks you to confirm this payment (3-D Secure).',
          link: { href: outcome.challengeUrl, text: 'Continue to your bank' },
        }),
      );
    case 'declined': {
      const { obligation, reason } = outcome;
      return pageAnswer(
        c,
        200,
        'Payment declined',
        resultPage({
          heading: 'Payment declined',
          message:
            obligation.amountMinor === 0
              ? `Your card was declined: ${reason}. It was not saved.`
              : `Your card was declined: ${reason}. Invoice ${obligation.invoice} was not paid.`,
          link: backLink(outcome.page.urlCancel),
        }),
      );
    }
  }
}

/** OpenAPI entry of an HTML answer. */
export const htmlResponse = (description: string) => ({
  description,
  content: { 'text/html': { schema: z.string().openapi({ example: '<!doctype html>…' }) } },
});
