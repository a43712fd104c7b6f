import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { investorCaller } from '../callers.ts';
import { bidErrorResponses, bidSchema, idParams } from '../investor-schemas.ts';
import { lendingPath } from '../paths.ts';

/** `GET /Investor/Bids/{id}`: one bid of the investor's (another's: 404). */
export const investorBidsGetOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Investor/Bids/{id}'),
      tags: ['Investor'],
      summary: 'Read a bid',
      security: lendingSecurity.user,
      request: { params: idParams },
      responses: {
        200: { description: 'The bid', content: { 'application/json': { schema: bidSchema } } },
        ...bidErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      await lending.readBid(c.get('deps'), { caller: investorCaller(c), bidId: c.req.valid('param').id }),
      200,
    ),
});
