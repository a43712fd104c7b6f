import { createRoute } from '@hono/zod-openapi';
import { requestRolloverUpdate } from '../../domain/lending/loan-process.ts';
import { defineLendingOperation, lendingSecurity, requireCustomer } from './auth.ts';
import { actorOf, customerLoan, loanAnswer, loanIdParams, loanView, moveLoan } from './loan-records.ts';
import { lendingPath } from './paths.ts';

/** `POST /Customer/Loans/{loanId}/Rollover`: requests a rollover of an Active or Past Due loan (design). */
export const rolloverRequestOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Customer/Loans/{loanId}/Rollover'),
      tags: ['Customer loans'],
      summary: 'Request a rollover',
      description:
        'Only for an Active or Past Due loan (else 409 `invalid_loan_status`) without a pending request (else 409 ' +
        '`rollover_already_requested`). The status does not change; management acts on the request.',
      security: lendingSecurity.user,
      request: { params: loanIdParams },
      responses: loanAnswer('The loan with its rollover requested'),
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    const row = await customerLoan(c, customerId, c.req.valid('param').loanId);
    const moved = await moveLoan(c.get('deps'), row, 'requestRollover', (loan) =>
      loan.executeUpdate(requestRolloverUpdate, { args: [{ by: actorOf(c) }] }),
    );
    return c.json(await loanView(c.get('deps').db, moved, 'customer'), 200);
  },
});
