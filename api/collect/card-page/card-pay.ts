import { randomBytes, randomInt } from 'node:crypto';
import { createRoute } from '@hono/zod-openapi';
import { and, eq, isNull } from 'drizzle-orm';
import { ACQUIRER_NOT_CONFIGURED_MESSAGE, cardIssuerFor } from '../../../connectors/collect/card-issuer.ts';
import { collectCardPages } from '../../../db/schema/collect-card-page.ts';
import { badField, CollectProtocolError, missingField } from '../../../domain/collect/errors.ts';
import { type CardPaymentDecision, cardPaymentUpdate } from '../../../domain/collect/processes.ts';
import { type CardForm, validateCard } from '../../../domain/collect/test-cards.ts';
import type { ApiDeps } from '../../shared/context.ts';
import { defineOperation } from '../../shared/operation.ts';
import { findObligation, type Obligation, updateObligation } from '../protocol.ts';
import { resultPage } from './html.ts';
import {
  closedView,
  htmlResponse,
  PAGE_ERRORS,
  type PageContext,
  pageAnswer,
  pageError,
  pageHandler,
  renderForm,
  sha256,
} from './responses.ts';

/**
 * POST /card/pay : the form of the hosted card page (POST /): pay (→ PAID, 303 to URL_OK), declined
 * (→ DENIED, decline page linking to URL_CANCEL) or cancel (→ DENIED, 303 to URL_CANCEL). The page's
 * single-use token is consumed by the first submission that decides.
 */

type CardPage = typeof collectCardPages.$inferSelect;

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

/** Authorisation codes of a sandbox card payment: STAN (6 digits) and BCODE (6 characters). */
const authorisation = () => ({
  stan: String(randomInt(0, 1_000_000)).padStart(6, '0'),
  bcode: randomBytes(4).toString('hex').slice(0, 6).toUpperCase(),
});

const formText = (body: Record<string, unknown>, name: string) => {
  const value = body[name];
  return typeof value === 'string' ? value : '';
};

/** Moves the obligation through its workflow; a refusal (expired meanwhile, ...) is a protocol error. */
async function decide(deps: ApiDeps, obligation: Obligation, decision: CardPaymentDecision): Promise<void> {
  await updateObligation(deps, obligation, (handle) =>
    handle.executeUpdate(cardPaymentUpdate, { args: [decision] }),
  );
}

/** The customer's pay or cancel. */
async function submitPage(c: PageContext, deps: ApiDeps): Promise<Response> {
  // Production mode has no card issuer: no form is decided, no page consumed, nothing settled.
  const issuer = cardIssuerFor(deps.config);
  if (!issuer) throw new CollectProtocolError('ACQUIRER_NOT_CONFIGURED', ACQUIRER_NOT_CONFIGURED_MESSAGE);
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
    return pageAnswer(
      c,
      PAGE_ERRORS.PAGE_USED.status,
      'Payment page used',
      resultPage({ ...view, heading: PAGE_ERRORS.PAGE_USED.message, code: 'PAGE_USED' }),
    );
  }
  if (obligation.status !== 'PENDING' || obligation.expiresAt.getTime() <= Date.now()) {
    const view = closedView(obligation, page);
    return pageAnswer(c, view.status, view.heading, resultPage(view));
  }
  if (page.expiresAt.getTime() <= Date.now()) {
    return pageAnswer(
      c,
      PAGE_ERRORS.PAGE_EXPIRED.status,
      'Payment page expired',
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
    return pageAnswer(
      c,
      200,
      'Payment cancelled',
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
  const decision = issuer.decide(checked.card.number);
  if (!(await consume(deps, page, decision.outcome === 'approved' ? 'paid' : 'declined'))) {
    return pageError(c, 'PAGE_USED');
  }
  if (decision.outcome === 'approved') {
    await decide(deps, obligation, { outcome: 'approved', ...authorisation() });
    if (page.urlOk) return c.redirect(page.urlOk, 303);
    return pageAnswer(
      c,
      200,
      'Payment complete',
      resultPage({ heading: 'Payment complete', message: `Invoice ${obligation.invoice} has been paid.` }),
    );
  }
  await decide(deps, obligation, { outcome: 'declined', reason: decision.reason });
  return pageAnswer(
    c,
    200,
    'Payment declined',
    resultPage({
      heading: 'Payment declined',
      message: `Your card was declined: ${decision.reason}. Invoice ${obligation.invoice} was not paid.`,
      link: page.urlCancel ? { href: page.urlCancel, text: 'Return to the merchant' } : undefined,
    }),
  );
}

export const cardPayOperation = defineOperation({
  route: () =>
    createRoute({
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
        503: htmlResponse('ACQUIRER_NOT_CONFIGURED: production mode without a card acquirer'),
      },
    }),
  handler: () => pageHandler(submitPage),
});
