import { createRoute, z } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { defineOperation } from '../../shared/operation.ts';
import { answerCardPage, htmlResponse, pageHandler } from './responses.ts';

/**
 * GET /card/return?authorisation=<id> : where the card acquirer sends the customer's browser back after
 * its 3-D Secure page. The query only names the authorisation: what happened is asked of the acquirer
 * itself (authenticated with the gateway's API key), so a forged or replayed return decides nothing the
 * acquirer did not decide. Passed → as an approved card (PAID / HELD, 303 to URL_OK); failed → DENIED.
 */
export const cardReturnOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/card/return',
      tags: ['Card payment'],
      summary: 'Return from the 3-D Secure check',
      description:
        'The card acquirer sends the customer here after its 3-D Secure page, with `authorisation` (its id). ' +
        'The gateway asks the acquirer what was decided: passed → 303 to URL_OK (online payment PAID, ' +
        'pre-authorisation HELD); failed → decline page (DENIED). Returning again shows where the payment stands.',
      request: {
        query: z.object({
          authorisation: z
            .string()
            .optional()
            .openapi({ description: 'The acquirer’s authorisation id', example: 'auth_4f3c…' }),
        }),
      },
      responses: {
        200: htmlResponse('Declined, or where the payment stands'),
        303: { description: 'To URL_OK (paid or held)' },
        400: htmlResponse('MISSING_FIELD'),
        404: htmlResponse('PAGE_NOT_FOUND: no card page submitted this authorisation'),
        502: htmlResponse('ACQUIRER_REFUSED'),
        503: htmlResponse('ACQUIRER_UNAVAILABLE: try the return link again shortly'),
      },
    }),
  handler: () =>
    pageHandler(async (c, deps) =>
      answerCardPage(
        c,
        await collect.returnFromChallenge(deps, { authorisationId: c.req.query('authorisation') }),
      ),
    ),
});
