import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { loanAnswer, loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

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
    const { loanId } = c.req.valid('param');
    return c.json(await lending.cancelRollover(c.get('deps'), { caller: customerCaller(c), loanId }), 200);
  },
});
