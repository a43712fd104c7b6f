import { createRoute } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { defineOperation } from '../../shared/operation.ts';
import { publicBaseUrl } from '../../shared/public-url.ts';
import {
  answerCardPage,
  challengeReturnUrl,
  htmlResponse,
  type PageContext,
  pageHandler,
} from './responses.ts';

/**
 * POST /card/pay : the form of the hosted card page (POST /). `pay` asks the card acquirer to
 * authorise the amount (connectors/collect/acquirer.ts): approved → the obligation's workflow captures
 * it (online payment → PAID, 303 to URL_OK) or keeps it held (pre-authorisation → HELD, 303 to URL_OK);
 * declined → DENIED, decline page linking to URL_CANCEL; a 3-D Secure challenge → a page sending the
 * customer to the issuer's check, decided on return (GET /card/return). `cancel` → DENIED, 303 to
 * URL_CANCEL. The page's single-use token is consumed by the first submission the acquirer decides.
 */

const formText = (body: Record<string, unknown>, name: string) => {
  const value = body[name];
  return typeof value === 'string' ? value : '';
};

/** The form's fields (a body of another type has none); the use case decides what they mean. */
async function formBody(c: PageContext): Promise<Record<string, unknown>> {
  const type = c.req.header('content-type') ?? '';
  return type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')
    ? await c.req.parseBody()
    : {};
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
  handler: () =>
    pageHandler(async (c, deps) => {
      const body = await formBody(c);
      const outcome = await collect.submitCardPage(deps, {
        token: formText(body, 'token'),
        action: formText(body, 'action'),
        card: {
          number: formText(body, 'number'),
          expiry: formText(body, 'expiry'),
          cvv: formText(body, 'cvv'),
          holder: formText(body, 'holder'),
        },
        challengeReturnUrl: challengeReturnUrl(c, publicBaseUrl(c)),
      });
      return answerCardPage(c, outcome);
    }),
});
