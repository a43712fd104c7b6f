import { createRoute } from '@hono/zod-openapi';
import { and, eq, isNull } from 'drizzle-orm';
import type { UseCaseDeps } from '../../../application/shared/deps.ts';
import {
  AcquirerRefusal,
  AcquirerUnavailable,
  type Authorisation,
  acquirerFor,
  acquirerIdempotencyKey,
} from '../../../connectors/collect/acquirer.ts';
import { collectCardPages } from '../../../db/schema/collect-card-page.ts';
import { badField, missingField } from '../../../domain/collect/errors.ts';
import { type CardPaymentDecision, cardPaymentUpdate } from '../../../domain/collect/processes.ts';
import { type CardForm, isWellKnownTestCard, validateCard } from '../../../domain/collect/test-cards.ts';
import { defineOperation } from '../../shared/operation.ts';
import { publicBaseUrl } from '../../shared/public-url.ts';
import { findObligation, type Obligation, updateObligation } from '../protocol.ts';
import { resultPage } from './html.ts';
import {
  challengeReturnUrl,
  closedView,
  htmlResponse,
  PAGE_ERRORS,
  type PageContext,
  pageAnswer,
  pageError,
  pageHandler,
  renderForm,
  savedCardOf,
  sha256,
} from './responses.ts';

/**
 * POST /card/pay : the form of the hosted card page (POST /). `pay` asks the card acquirer to
 * authorise the amount (connectors/collect/acquirer.ts): approved → the obligation's workflow captures
 * it (online payment → PAID, 303 to URL_OK) or keeps it held (pre-authorisation → HELD, 303 to URL_OK);
 * declined → DENIED, decline page linking to URL_CANCEL; a 3-D Secure challenge → a page sending the
 * customer to the issuer's check, decided on return (GET /card/return). `cancel` → DENIED, 303 to
 * URL_CANCEL. The page's single-use token is consumed by the first submission the acquirer decides.
 */

type CardPage = typeof collectCardPages.$inferSelect;

/** Marks the page used; false when another submission got there first. */
async function consume(
  deps: UseCaseDeps,
  page: CardPage,
  outcome: NonNullable<CardPage['outcome']>,
  authorisationId?: string,
): Promise<boolean> {
  const rows = await deps.db
    .update(collectCardPages)
    .set({ usedAt: new Date(), outcome, authorisationId: authorisationId ?? null })
    .where(and(eq(collectCardPages.tokenHash, page.tokenHash), isNull(collectCardPages.usedAt)))
    .returning({ tokenHash: collectCardPages.tokenHash });
  return rows.length > 0;
}

const formText = (body: Record<string, unknown>, name: string) => {
  const value = body[name];
  return typeof value === 'string' ? value : '';
};

/** Moves the obligation through its workflow; a refusal (expired meanwhile, ...) is a protocol error. */
async function decide(
  deps: UseCaseDeps,
  obligation: Obligation,
  decision: CardPaymentDecision,
): Promise<void> {
  await updateObligation(deps, obligation, (handle) =>
    handle.executeUpdate(cardPaymentUpdate, { args: [decision] }),
  );
}

/** The customer's answer once the acquirer has decided (now, or after the 3-D Secure page). */
export async function answerAuthorisation(
  c: PageContext,
  deps: UseCaseDeps,
  obligation: Obligation,
  page: Pick<CardPage, 'urlOk' | 'urlCancel'>,
  authorisation: Authorisation,
): Promise<Response> {
  const back = page.urlCancel ? { href: page.urlCancel, text: 'Return to the merchant' } : undefined;
  if (authorisation.status === 'challenge_required' && authorisation.challengeUrl) {
    // A link, not a redirect: the page's CSP (form-action) names only the gateway and the merchant.
    return pageAnswer(
      c,
      200,
      'Confirm the payment with your bank',
      resultPage({
        heading: 'Confirm the payment with your bank',
        message: 'Your card issuer asks you to confirm this payment (3-D Secure).',
        link: { href: authorisation.challengeUrl, text: 'Continue to your bank' },
      }),
    );
  }
  if (authorisation.status === 'authorised') {
    const saveCard = obligation.details.saveCard === '1';
    await decide(deps, obligation, {
      outcome: 'approved',
      acquirer: acquirerFor(deps.config).id,
      authorisationId: authorisation.id,
      amountMinor: authorisation.amountMinor,
      ...(saveCard ? { saveCard } : {}),
    });
    if (page.urlOk) return c.redirect(page.urlOk, 303);
    const latest = (await findObligation(deps, obligation.idn)) ?? obligation;
    const view = closedView(latest, page, saveCard ? await savedCardOf(deps, obligation.idn) : undefined);
    return pageAnswer(c, view.status, view.heading, resultPage(view));
  }
  const reason = authorisation.declineReason ?? 'the card was not authorised';
  await decide(deps, obligation, { outcome: 'declined', reason });
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
      link: back,
    }),
  );
}

/** What the acquirer's failure means to the customer: try again later, or nothing can be done here. */
export function acquirerFailurePage(c: PageContext, error: unknown): Promise<Response> {
  if (error instanceof AcquirerUnavailable) return pageError(c, 'ACQUIRER_UNAVAILABLE');
  if (error instanceof AcquirerRefusal) {
    // Another page of the same obligation was submitted with another card first.
    if (error.code === 'idempotency_conflict') return pageError(c, 'PAGE_USED');
    return pageError(c, 'ACQUIRER_REFUSED');
  }
  throw error;
}

/** The customer's pay or cancel. */
async function submitPage(c: PageContext, deps: UseCaseDeps): Promise<Response> {
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
  // Production never lets a published test card reach an acquirer (a sandbox one would approve it).
  const problems =
    checked.card && deps.config.PLATFORM_MODE === 'production' && isWellKnownTestCard(checked.card.number)
      ? { number: 'Test cards are not accepted: use a real card' }
      : checked.problems;
  if (problems || !checked.card) {
    // The page stays usable: the customer corrects the card and submits the same form again.
    return renderForm(c, deps, obligation, {
      token,
      urlOk: page.urlOk,
      urlCancel: page.urlCancel,
      status: 422,
      values: form,
      problems: problems ?? {},
    });
  }

  // Authorised before the page is consumed: an unreachable acquirer leaves the form usable, and the
  // idempotency key (one per IDN) makes a repeated submission the same authorisation.
  const { card } = checked;
  let authorisation: Authorisation;
  try {
    authorisation = await acquirerFor(deps.config).authorise(
      {
        reference: obligation.idn,
        amountMinor: obligation.amountMinor,
        currency: obligation.currency,
        // SAVECARD=1: stored at the acquirer once approved (a zero amount is then a verification).
        ...(obligation.details.saveCard === '1' ? { storeCard: true } : {}),
        card: {
          number: card.number,
          expiryMonth: card.expiryMonth,
          expiryYear: card.expiryYear,
          cvv: form.cvv.trim(),
          ...(card.holder ? { holder: card.holder } : {}),
        },
        returnUrl: challengeReturnUrl(c, publicBaseUrl(c)),
      },
      acquirerIdempotencyKey(obligation.idn, 'authorise'),
    );
  } catch (error) {
    return acquirerFailurePage(c, error);
  }
  const outcome =
    authorisation.status === 'challenge_required'
      ? 'challenge'
      : authorisation.status === 'authorised'
        ? 'paid'
        : 'declined';
  if (!(await consume(deps, page, outcome, authorisation.id))) return pageError(c, 'PAGE_USED');
  return answerAuthorisation(c, deps, obligation, page, authorisation);
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
        '`cvv`, `holder`. The card acquirer authorises the amount: approved → 303 to URL_OK (online payment PAID, ' +
        'pre-authorisation HELD; with SAVECARD=1 the card is saved too, and a zero amount is SAVED); declined → decline page (DENIED); 3-D Secure → a page linking to the issuer’s ' +
        'check, decided on return (GET /card/return); cancel → 303 to URL_CANCEL (DENIED); invalid card details ' +
        '(or, in production, a published test card) → 422 with the form again.',
      responses: {
        200: htmlResponse('Declined; a 3-D Secure check to continue to; or completed without URL_OK'),
        303: { description: 'To URL_OK (paid) or URL_CANCEL (cancelled)' },
        404: htmlResponse('PAGE_NOT_FOUND'),
        409: htmlResponse('PAGE_USED; or the obligation is closed'),
        410: htmlResponse('PAGE_EXPIRED'),
        422: htmlResponse('Card details not valid: the form again, each problem next to its field'),
        502: htmlResponse('ACQUIRER_REFUSED: the acquirer refused the request itself'),
        503: htmlResponse('ACQUIRER_UNAVAILABLE: the acquirer cannot be reached (the form stays usable)'),
      },
    }),
  handler: () => pageHandler(submitPage),
});
