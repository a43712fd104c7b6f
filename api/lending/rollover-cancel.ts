import { createRoute } from '@hono/zod-openapi';
import { cancelRolloverUpdate } from '../../domain/lending/loan-process.ts';
import { defineLendingOperation, lendingSecurity, requireCustomer } from './auth.ts';
import { actorOf, customerLoan, loanAnswer, loanIdParams, loanView, moveLoan } from './loan-records.ts';
import { lendingPath } from './paths.ts';

/** `DELETE /Customer/Loans/{loanId}/Rollover`: withdraws a pending rollover request. */
export const rolloverCancelOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'delete',
      path: lendingPath('/Customer/Loans/{loanId}/Rollover'),
      tags: ['Customer loans'],
      summary: 'Cancel the rollover request',
      description:
        'Only for an Active or Past Due loan (else 409 `invalid_loan_status`) with a pending request (else 409 ' +
        '`rollover_not_requested`).',
      security: lendingSecurity.user,
      request: { params: loanIdParams },
      responses: loanAnswer('The loan without a rollover request'),
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    const row = await customerLoan(c, customerId, c.req.valid('param').loanId);
    const moved = await moveLoan(c.get('deps'), row, 'cancelRollover', (loan) =>
      loan.executeUpdate(cancelRolloverUpdate, { args: [{ by: actorOf(c) }] }),
    );
    return c.json(await loanView(c.get('deps').db, moved, 'customer'), 200);
  },
});
