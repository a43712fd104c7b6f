import { createRoute, z } from '@hono/zod-openapi';
import { editRepaymentUpdate, type LoanSnapshot } from '../../domain/lending/loan-process.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineLendingOperation, lendingSecurity } from './auth.ts';
import { actorOf, loanView, moveLoan } from './loan-records.ts';
import { lendingPath } from './paths.ts';
import {
  repaymentAnswerSchema,
  repaymentDate,
  repaymentErrorResponses,
  repaymentFields,
  repaymentIdParams,
  repaymentIn,
  tenantRepayment,
} from './repayment-records.ts';

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
    const deps = c.get('deps');
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const { loan: row } = await tenantRepayment(c, id);
    const repayment = {
      repaymentId: id,
      amount: body.amount,
      date: repaymentDate(row, body.date),
      mode: body.mode,
    };
    let answered: LoanSnapshot | undefined;
    const moved = await moveLoan(
      deps,
      row,
      'correctRepayment',
      async (loan) => {
        answered = await loan.executeUpdate(editRepaymentUpdate, { args: [{ by: actorOf(c), repayment }] });
        return answered;
      },
      true,
    );
    return c.json(
      { repayment: repaymentIn(answered, repayment), loan: await loanView(deps.db, moved, 'management') },
      200,
    );
  },
});
