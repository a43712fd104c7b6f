import { createRoute } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { defineOperation } from '../../shared/operation.ts';
import { authenticationErrors, requestParams } from '../protocol.ts';
import { answerCardPage, htmlResponse, pageHandler } from './responses.ts';

/**
 * POST / : the hosted card payment page (spec A.1, ePay.bg `PAGE=credit_paydirect`; `credit_preauth`
 * holds a pre-authorisation's amount instead, decision 0032). The merchant's
 * page posts PAGE, ENCODED, CHECKSUM (a form the customer's browser submits; URL_OK and URL_CANCEL
 * count inside the signed packet, and as form fields under the merchant's return origins); the obligation `collect-<idn>` is registered and the card form
 * is answered (application/collect/card-page.ts). docs/collect.md, decision 0013.
 */

/** The page's handler; also serves the slashed mount path (`{base_url}/`, see api/collect/index.ts). */
export const openCardPage = pageHandler(async (c, deps) =>
  answerCardPage(c, await collect.openCardPage(deps, await requestParams(c))),
);

/** The form fields, documentation only: the page reads them itself and answers its errors as pages. */
const cardPageForm = {
  type: 'object' as const,
  properties: {
    PAGE: { type: 'string' as const, enum: ['credit_paydirect', 'credit_preauth'] },
    ENCODED: { type: 'string' as const, description: 'Base64 of the packet' },
    CHECKSUM: { type: 'string' as const, description: 'HMAC-SHA1 hex of ENCODED with the merchant secret' },
    URL_OK: {
      type: 'string' as const,
      description:
        'Not signed: used when the packet has no URL_OK and it lies under a return origin the merchant ' +
        'registered (an operator setting); otherwise not used. Checked to be an http(s) URL',
    },
    URL_CANCEL: {
      type: 'string' as const,
      description:
        'Not signed: used when the packet has no URL_CANCEL and it lies under a return origin the merchant ' +
        'registered; otherwise not used. Checked to be an http(s) URL',
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
        '`URL_OK`/`URL_CANCEL` form fields (as ePay shops post them) are not signed: they are used when the ' +
        'packet has none and they lie under a return origin the merchant registered, else not used. `PAGE=credit_preauth` with the REGISTER packet of `POST /v3main/` ' +
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
