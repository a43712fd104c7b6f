import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { errorBodySchema } from '../../shared/errors.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { investorCaller } from '../callers.ts';
import { idParams, investmentSchema } from '../investor-schemas.ts';
import { lendingPath } from '../paths.ts';

/** `GET /Investor/ActiveInvestments/{id}`: one active investment with its share of each repayment. */
export const investorActiveInvestmentsGetOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Investor/ActiveInvestments/{id}'),
      tags: ['Investor'],
      summary: 'One active investment',
      description:
        'The investment (its id is its bid’s) with `shares`: your part of each repayment of the loan, pro rata to ' +
        'your amount over the loan’s, in whole cents (decision 0052). Another investor’s: 404.',
      security: lendingSecurity.user,
      request: { params: idParams },
      responses: {
        200: { description: 'The investment', content: { 'application/json': { schema: investmentSchema } } },
        ...lendingErrorResponses,
        404: { description: '`not_found`', content: { 'application/json': { schema: errorBodySchema } } },
      },
    }),
  handler: () => async (c) =>
    c.json(
      await lending.activeInvestment(c.get('deps'), {
        caller: investorCaller(c),
        investmentId: c.req.valid('param').id,
      }),
      200,
    ),
});
