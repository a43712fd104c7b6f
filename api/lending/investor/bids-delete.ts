import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { investorCaller } from '../callers.ts';
import { bidErrorResponses, bidSchema, idParams } from '../investor-schemas.ts';
import { lendingPath } from '../paths.ts';

/** `DELETE /Investor/Bids/{id}`: withdraws an active bid; its amount is free to bid again. */
export const investorBidsDeleteOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'delete',
      path: lendingPath('/Investor/Bids/{id}'),
      tags: ['Investor'],
      summary: 'Withdraw a bid',
      description:
        'Withdraws an active bid (answered `withdrawn`); 409 `bid_closed` once withdrawn or invested.',
      security: lendingSecurity.user,
      request: { params: idParams },
      responses: {
        200: { description: 'The bid, withdrawn', content: { 'application/json': { schema: bidSchema } } },
        ...bidErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      await lending.withdrawBid(c.get('deps'), { caller: investorCaller(c), bidId: c.req.valid('param').id }),
      200,
    ),
});
