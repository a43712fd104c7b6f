import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { investorCaller } from '../callers.ts';
import { bidSchema } from '../investor-schemas.ts';
import { lendingPath } from '../paths.ts';

/** `GET /Investor/Bids`: the investor's bids, newest first. */
export const investorBidsOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Investor/Bids'),
      tags: ['Investor'],
      summary: 'The investor’s bids',
      description:
        'Every bid of yours, newest first: active, withdrawn, or invested at the loan’s disbursement.',
      security: lendingSecurity.user,
      responses: {
        200: {
          description: 'The bids',
          content: { 'application/json': { schema: z.object({ items: z.array(bidSchema) }) } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(await lending.listBids(c.get('deps'), { caller: investorCaller(c) }), 200),
});
