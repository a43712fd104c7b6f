import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { BIDDING_STATUSES } from '../../../domain/lending/bids.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { investorCaller } from '../callers.ts';
import { opportunitySchema } from '../investor-schemas.ts';
import { lendingPath } from '../paths.ts';

/** `GET /Investor/Opportunities`: loans open for funding that match the investor's preferences, paged. */
export const investorOpportunitiesOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Investor/Opportunities'),
      tags: ['Investor'],
      summary: 'Loan applications awaiting investment',
      description:
        `The tenant’s loans open for funding (${BIDDING_STATUSES.join(', ')}: from the accepted offer until disbursement) ` +
        'with an amount left to bid, filtered by your Preferences; oldest first; pageNumber from 1, pageSize 1-100 ' +
        '(default 20). No borrower’s personal data.',
      security: lendingSecurity.user,
      request: {
        query: z.object({
          pageNumber: z.coerce.number().int().min(1).max(1_000_000).default(1).openapi({ example: 1 }),
          pageSize: z.coerce.number().int().min(1).max(100).default(20).openapi({ example: 20 }),
        }),
      },
      responses: {
        200: {
          description: 'A page of opportunities',
          content: {
            'application/json': {
              schema: z.object({
                items: z.array(opportunitySchema),
                pageNumber: z.number().int(),
                pageSize: z.number().int(),
                total: z.number().int(),
              }),
            },
          },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      await lending.opportunities(c.get('deps'), { caller: investorCaller(c), page: c.req.valid('query') }),
      200,
    ),
});
