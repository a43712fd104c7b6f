import { randomBytes } from 'node:crypto';
import { createRoute } from '@hono/zod-openapi';
import type { UseCaseDeps } from '../../../application/shared/deps.ts';
import { collectCardPages } from '../../../db/schema/collect-card-page.ts';
import { badField, CollectProtocolError, missingField } from '../../../domain/collect/errors.ts';
import {
  OnlinePaymentPayload,
  PreauthRegisterPayload,
  parsePayload,
} from '../../../domain/collect/payloads.ts';
import { defineOperation } from '../../shared/operation.ts';
import { authenticate, authenticationErrors, requestParams } from '../protocol.ts';
import { registerObligation } from '../registration.ts';
import { resultPage } from './html.ts';
import {
  closedView,
  htmlResponse,
  type PageContext,
  pageAnswer,
  pageHandler,
  renderForm,
  sha256,
} from './responses.ts';

/**
 * POST / : the hosted card payment page (spec A.1, ePay.bg `PAGE=credit_paydirect`; `credit_preauth`
 * holds a pre-authorisation's amount instead, decision 0032). The merchant's
 * page posts PAGE, ENCODED, CHECKSUM (a form the customer's browser submits; URL_OK and URL_CANCEL
 * count only inside the signed packet, see checkUnsignedReturnUrl); the
 * obligation `collect-<idn>` is registered and the card form is answered. Each rendering carries a
 * random single-use token (only its hash is stored): the form cannot be posted from another site, and
 * a paid page cannot be submitted again (POST /card/pay). docs/collect.md, decision 0013.
 */

/**
 * URL_OK / URL_CANCEL sent as form fields (ePay's checkout form has them): they are not covered by
 * the CHECKSUM, so anyone relaying a merchant's signed packet could send the customer elsewhere after
 * a real payment (an open redirect). They are checked (an absolute http(s) URL, else BAD_FIELD, as
 * before) but never used: only URL_OK / URL_CANCEL inside the signed ENCODED packet count.
 */
function checkUnsignedReturnUrl(value: string | undefined, field: string): void {
  if (value === undefined || value === '') return;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw badField(field, 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badField(field, 'must be an http(s) URL');
}

/** Registers (or finds again) the obligation and answers a fresh card form for it. */
async function openPage(c: PageContext, deps: UseCaseDeps): Promise<Response> {
  const params = await requestParams(c);
  const page = params.PAGE;
  if (!page) throw missingField('PAGE');
  // credit_paydirect pays an online payment; credit_preauth holds the amount of a pre-authorisation.
  const mode = page.toLowerCase();
  if (mode !== 'credit_paydirect' && mode !== 'credit_preauth') {
    throw badField('PAGE', 'must be credit_paydirect (card payment) or credit_preauth (card hold)');
  }
  const { merchant, packet } = await authenticate(deps, params);
  const kind = mode === 'credit_preauth' ? 'preauth' : 'online_payment';
  // A hold's packet is the REGISTER packet of POST /v3main/ (same packet, same obligation).
  const payment =
    kind === 'preauth'
      ? parsePayload(PreauthRegisterPayload, { ...packet, PHASE: 'REGISTER' })
      : parsePayload(OnlinePaymentPayload, packet);
  checkUnsignedReturnUrl(params.URL_OK, 'URL_OK');
  checkUnsignedReturnUrl(params.URL_CANCEL, 'URL_CANCEL');
  // Only the return URLs of the signed packet.
  const urlOk = payment.urlOk ?? null;
  const urlCancel = payment.urlCancel ?? null;
  const { obligation } = await registerObligation(deps, {
    merchant,
    packet,
    kind,
    terms: payment,
    defaultExpiryMs:
      kind === 'preauth' ? deps.config.COLLECT_PREAUTH_EXPIRY : deps.config.COLLECT_OBLIGATION_EXPIRY,
    // SAVECARD=1 (decision 0045): the approved card is saved for the merchant.
    details: 'saveCard' in payment && payment.saveCard ? { saveCard: '1' } : {},
  });
  if (obligation.kind !== kind) {
    throw new CollectProtocolError(
      'DUPLICATE_INVOICE',
      `INVOICE ${obligation.invoice} is registered already for another kind of payment`,
      'INVOICE',
    );
  }
  // A packet posted again (back button, refresh) shows where its obligation stands.
  if (obligation.status !== 'PENDING' || obligation.expiresAt.getTime() <= Date.now()) {
    const view = closedView(obligation, { urlOk, urlCancel });
    return pageAnswer(c, view.status, view.heading, resultPage(view));
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

/** The page's handler; also serves the slashed mount path (`{base_url}/`, see api/collect/index.ts). */
export const openCardPage = pageHandler(openPage);

/** The form fields, documentation only: the page reads them itself and answers its errors as pages. */
const cardPageForm = {
  type: 'object' as const,
  properties: {
    PAGE: { type: 'string' as const, enum: ['credit_paydirect', 'credit_preauth'] },
    ENCODED: { type: 'string' as const, description: 'Base64 of the packet' },
    CHECKSUM: { type: 'string' as const, description: 'HMAC-SHA1 hex of ENCODED with the merchant secret' },
    URL_OK: {
      type: 'string' as const,
      description: 'Ignored (not signed): put URL_OK in the ENCODED packet. Checked to be an http(s) URL',
    },
    URL_CANCEL: {
      type: 'string' as const,
      description: 'Ignored (not signed): put URL_CANCEL in the ENCODED packet. Checked to be an http(s) URL',
    },
  },
  required: ['PAGE', 'ENCODED', 'CHECKSUM'],
};

export const cardPageOpenOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/',
      tags: ['Card payment'],
      summary: 'Open the hosted card page: pay (OnlinePaymentPayload) or hold (PreauthRegisterPayload)',
      description:
        'Posted by the customer’s browser from the merchant’s page (a form). Body fields: `PAGE=credit_paydirect`, ' +
        '`ENCODED` (packet: `MIN`, `INVOICE`, `AMOUNT`, optional `CURRENCY`, `EXP_TIME`, `DESCR`, `URL_OK`, ' +
        '`URL_CANCEL`, `SAVECARD`, `ENCODING=utf-8`), `CHECKSUM`. `SAVECARD=1` saves the card once the payment is ' +
        'approved (the notification of the INVOICE carries `CARD_TOKEN`, `CARD_BRAND`, `CARD_LAST4`, `CARD_EXP`) and ' +
        'allows `AMOUNT=0`: a card verification that pays nothing (STATUS `SAVED`). ' +
        '`URL_OK`/`URL_CANCEL` form fields are not signed and are ' +
        'ignored: only those in the packet count. `PAGE=credit_preauth` with the REGISTER packet of `POST /v3main/` ' +
        'opens the same form to hold the amount on the card (the pre-authorisation is HELD once the card acquirer ' +
        'authorises it). Registers the obligation (`collect-<IDN>`, status PENDING; the same ' +
        'packet again finds the same obligation) and answers the card form. Errors answer an HTML page with the ' +
        `error code: ${[...authenticationErrors, 'DUPLICATE_INVOICE'].join(', ')}.`,
      request: {
        body: { required: true, content: { 'application/x-www-form-urlencoded': { schema: cardPageForm } } },
      },
      responses: {
        200: htmlResponse('The card form (or, for a packet posted again, where its payment stands)'),
        400: htmlResponse('MISSING_FIELD, BAD_FIELD, BAD_ENCODED'),
        401: htmlResponse('UNKNOWN_MERCHANT, BAD_CHECKSUM'),
        409: htmlResponse('DUPLICATE_INVOICE; or the payment is closed (expired, declined)'),
      },
    }),
  handler: () => openCardPage,
});
