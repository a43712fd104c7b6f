import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { loanAnswer, loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

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
    const { loanId } = c.req.valid('param');
    return c.json(await lending.requestRollover(c.get('deps'), { caller: customerCaller(c), loanId }), 200);
  },
});
