import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { managementCaller } from '../callers.ts';
import { lendingPath } from '../paths.ts';
import {
  repaymentAnswerSchema,
  repaymentErrorResponses,
  repaymentFields,
  repaymentIdParams,
} from '../repayment-schemas.ts';

/**
 * `PUT /Management/Loans/Repayments/{id}`: edits a repayment (amount, date, mode); the loan's balances
 * and status are recomputed from all its repayments (decision 0043), also for a Repaid loan.
 */
export const loansRepaymentsPutOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'put',
      path: lendingPath('/Management/Loans/Repayments/{id}'),
      tags: ['Management loans'],
      summary: 'Edit a repayment',
      description:
        'Replaces the amount, date and mode of a repayment in force (a reversed one: 404). Balances and status are ' +
        'recomputed: an edit may make a loan Past Due, Active or Repaid, or bring a Repaid loan back (within the ' +
        'reversal window). More than the loan owes: 400 `repayment_exceeds_balance`.',
      security: lendingSecurity.apiKey,
      request: {
        params: repaymentIdParams,
        body: jsonBody(z.object(repaymentFields).openapi('RepaymentEdit')),
      },
      responses: {
        200: { description: 'Edited', content: { 'application/json': { schema: repaymentAnswerSchema } } },
        ...repaymentErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { id } = c.req.valid('param');
    return c.json(
      await lending.editRepayment(c.get('deps'), {
        caller: managementCaller(c),
        repaymentId: id,
        ...c.req.valid('json'),
      }),
      200,
    );
  },
});
