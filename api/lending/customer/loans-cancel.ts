import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { loanAnswer, loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

/**
 * `POST /Customer/Loans/{loanId}/Cancel?reasonId=&comments=`: cancels on the customer's request, with a
 * front-office cancellation reason (Dictionary/CancellationReasons), in any status before the money is
 * paid out (design: up to Approved).
 */
export const loansCancelOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Customer/Loans/{loanId}/Cancel'),
      tags: ['Customer loans'],
      summary: 'Cancel the loan',
      description:
        '`reasonId` (required) is a reason of Dictionary/CancellationReasons (400 names it otherwise). Allowed from ' +
        'Pre-Origination up to Approved; else 409 `invalid_loan_status`. The loan is closed as Cancelled.',
      security: lendingSecurity.user,
      request: {
        params: loanIdParams,
        query: z.object({
          reasonId: z.string().min(1).max(100).openapi({ example: 'crs_0b6f3c9e2d1a4f5b8c7e6d5a' }),
          comments: z.string().max(2000).optional().openapi({ example: 'Found a better rate' }),
        }),
      },
      responses: loanAnswer('The loan, closed as Cancelled'),
    }),
  handler: () => async (c) => {
    const { loanId } = c.req.valid('param');
    return c.json(
      await lending.cancelLoan(c.get('deps'), { caller: customerCaller(c), loanId, ...c.req.valid('query') }),
      200,
    );
  },
});
