import { createRoute } from '@hono/zod-openapi';
import { type LoanSnapshot, reverseRepaymentUpdate } from '../../domain/lending/loan-process.ts';
import { defineLendingOperation, lendingSecurity } from './auth.ts';
import { actorOf, loanView, moveLoan } from './loan-records.ts';
import { lendingPath } from './paths.ts';
import {
  repaymentAnswerSchema,
  repaymentErrorResponses,
  repaymentIdParams,
  repaymentIn,
  tenantRepayment,
} from './repayment-records.ts';

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
    const deps = c.get('deps');
    const { id } = c.req.valid('param');
    const { loan: row } = await tenantRepayment(c, id);
    let answered: LoanSnapshot | undefined;
    const moved = await moveLoan(
      deps,
      row,
      'correctRepayment',
      async (loan) => {
        answered = await loan.executeUpdate(reverseRepaymentUpdate, {
          args: [{ by: actorOf(c), repaymentId: id }],
        });
        return answered;
      },
      true,
    );
    return c.json(
      {
        repayment: repaymentIn(answered, { repaymentId: id }),
        loan: await loanView(deps.db, moved, 'management'),
      },
      200,
    );
  },
});
