import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { investorCaller } from '../callers.ts';
import { bidAmount, bidErrorResponses, bidSchema, idParams } from '../investor-schemas.ts';
import { lendingPath } from '../paths.ts';

/** `PUT /Investor/Bids/{id}`: changes an active bid's amount (a reduction frees the difference). */
export const investorBidsPutOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'put',
      path: lendingPath('/Investor/Bids/{id}'),
      tags: ['Investor'],
      summary: 'Change a bid’s amount',
      description:
        'The new amount of an active bid, decided by the loan’s workflow as a new bid is. 409 `bid_closed` for a ' +
        'withdrawn or invested bid, `funding_exceeds_amount` when the new amount does not fit.',
      security: lendingSecurity.user,
      request: { params: idParams, body: jsonBody(z.object({ amount: bidAmount }).strict()) },
      responses: {
        200: { description: 'The bid', content: { 'application/json': { schema: bidSchema } } },
        ...bidErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      await lending.changeBid(c.get('deps'), {
        caller: investorCaller(c),
        bidId: c.req.valid('param').id,
        amount: c.req.valid('json').amount,
      }),
      200,
    ),
});
