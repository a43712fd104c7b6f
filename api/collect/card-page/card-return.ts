import { createRoute, z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import type { UseCaseDeps } from '../../../application/shared/deps.ts';
import { acquirerFor } from '../../../connectors/collect/acquirer.ts';
import { collectCardPages } from '../../../db/schema/collect-card-page.ts';
import { CollectProtocolError, missingField } from '../../../domain/collect/errors.ts';
import { defineOperation } from '../../shared/operation.ts';
import { findObligation } from '../protocol.ts';
import { acquirerFailurePage, answerAuthorisation } from './card-pay.ts';
import { resultPage } from './html.ts';
import {
  closedView,
  htmlResponse,
  type PageContext,
  pageAnswer,
  pageError,
  pageHandler,
  savedCardOf,
} from './responses.ts';

/**
 * GET /card/return?authorisation=<id> : where the card acquirer sends the customer's browser back after
 * its 3-D Secure page. The query only names the authorisation: what happened is asked of the acquirer
 * itself (authenticated with the gateway's API key), so a forged or replayed return decides nothing the
 * acquirer did not decide. Passed → as an approved card (PAID / HELD, 303 to URL_OK); failed → DENIED.
 */
async function returnFromChallenge(c: PageContext, deps: UseCaseDeps): Promise<Response> {
  const authorisationId = c.req.query('authorisation');
  if (!authorisationId) throw missingField('authorisation');
  const [page] = await deps.db
    .select()
    .from(collectCardPages)
    .where(eq(collectCardPages.authorisationId, authorisationId))
    .limit(1);
  if (!page) return pageError(c, 'PAGE_NOT_FOUND');
  const obligation = await findObligation(deps, page.idn);
  if (!obligation) return pageError(c, 'PAGE_NOT_FOUND');
  const closed = async () => {
    const view = closedView(obligation, page, await savedCardOf(deps, obligation.idn));
    return pageAnswer(c, view.status, view.heading, resultPage(view));
  };
  // Returned again (reload, back button): where the payment stands.
  if (obligation.status !== 'PENDING') return closed();

  let authorisation: Awaited<ReturnType<ReturnType<typeof acquirerFor>['get']>>;
  try {
    authorisation = await acquirerFor(deps.config).get(authorisationId);
  } catch (error) {
    return acquirerFailurePage(c, error);
  }
  if (authorisation.reference !== obligation.idn) return pageError(c, 'PAGE_NOT_FOUND');
  try {
    return await answerAuthorisation(c, deps, obligation, page, authorisation);
  } catch (error) {
    // Two returns at once: the other one decided; answer where the payment stands now.
    if (!(error instanceof CollectProtocolError)) throw error;
    const latest = (await findObligation(deps, obligation.idn)) ?? obligation;
    const view = closedView(latest, page, await savedCardOf(deps, obligation.idn));
    return pageAnswer(c, view.status, view.heading, resultPage(view));
  }
}

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
  handler: () => pageHandler(returnFromChallenge),
});
