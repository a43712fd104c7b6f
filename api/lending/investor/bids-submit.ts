import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { investorCaller } from '../callers.ts';
import { bidAmount, bidErrorResponses, bidSchema } from '../investor-schemas.ts';
import { lendingPath } from '../paths.ts';

/**
 * `POST /Investor/Bids/Submit`: a bid on a loan open for funding, decided by the loan's workflow: the
 * loan's bids never exceed its amount, however many arrive together (decision 0052).
 */
export const investorBidsSubmitOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Investor/Bids/Submit'),
      tags: ['Investor'],
      summary: 'Submit a bid',
      description:
        'Bids `amount` on loan `loanId` (one of your Opportunities). 409 `funding_exceeds_amount` when the active ' +
        'bids would fund more than the loan’s amount (the message says what is left), `loan_not_open_for_funding` ' +
        'outside the funding window; 400 naming `amount` above your Preferences’ `maxBid`.',
      security: lendingSecurity.user,
      request: {
        body: jsonBody(
          z
            .object({
              loanId: z.string().trim().min(1).max(40).openapi({ example: '482913775' }),
              amount: bidAmount,
            })
            .strict(),
        ),
      },
      responses: {
        201: { description: 'The bid, active', content: { 'application/json': { schema: bidSchema } } },
        ...bidErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      await lending.submitBid(c.get('deps'), { caller: investorCaller(c), ...c.req.valid('json') }),
      201,
    ),
});
