import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { investorCaller } from '../callers.ts';
import { investmentSchema } from '../investor-schemas.ts';
import { lendingPath } from '../paths.ts';

/** `GET /Investor/ActiveInvestments`: the investor's investments in loans being repaid. */
export const investorActiveInvestmentsOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Investor/ActiveInvestments'),
      tags: ['Investor'],
      summary: 'Investments in currently disbursed loans',
      description:
        'Your bids that became investments at their loan’s disbursement, while the loan is Active or Past Due, ' +
        'with your pro-rata part of its repayments so far (`repaid`).',
      security: lendingSecurity.user,
      responses: {
        200: {
          description: 'The investments',
          content: { 'application/json': { schema: z.object({ items: z.array(investmentSchema) }) } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(await lending.activeInvestments(c.get('deps'), { caller: investorCaller(c) }), 200),
});
