import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { managementCaller } from '../callers.ts';
import { lendingPath } from '../paths.ts';
import { repaymentAnswerSchema, repaymentErrorResponses, repaymentIdParams } from '../repayment-schemas.ts';

/**
 * `DELETE /Management/Loans/Repayments/{id}`: reverses a repayment (kept, marked reversed); balances and
 * status are recomputed (decision 0043): a Repaid loan may come back to Active or Past Due.
 */
export const loansRepaymentsDeleteOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'delete',
      path: lendingPath('/Management/Loans/Repayments/{id}'),
      tags: ['Management loans'],
      summary: 'Reverse a repayment',
      description:
        'The repayment stays on record as reversed; the loan is recomputed without it (a Repaid loan comes back to ' +
        'Active or Past Due within the reversal window). Reversing it again changes nothing.',
      security: lendingSecurity.apiKey,
      request: { params: repaymentIdParams },
      responses: {
        200: { description: 'Reversed', content: { 'application/json': { schema: repaymentAnswerSchema } } },
        ...repaymentErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { id } = c.req.valid('param');
    return c.json(
      await lending.reverseRepayment(c.get('deps'), { caller: managementCaller(c), repaymentId: id }),
      200,
    );
  },
});
