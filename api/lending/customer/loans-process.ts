import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { customerCaller } from '../callers.ts';
import { loanAnswer, loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

export const commentsQuery = z.object({
  comments: z.string().max(2000).optional().openapi({ example: 'All documents attached' }),
});

/** `POST /Customer/Loans/{loanId}/Process?comments=`: sends the customer's loan for processing. */
export const customerLoansProcessOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Customer/Loans/{loanId}/Process'),
      tags: ['Customer loans'],
      summary: 'Send the loan for processing',
      description:
        'Only in Origination or Reprocessing (or Collateral once a collateral is registered); else 409 ' +
        '`invalid_loan_status` naming the current status. A secured loan goes to Collateral; an unsecured one is ' +
        'decided by the credit bureau: Offer confirmation, Rejected, or Waiting for approval (referred, or the ' +
        'bureau did not answer). Answers at once, once the request is recorded: the loan in Collateral, or still in ' +
        'its status with the decision pending (a second Process meanwhile is 409 `decision_in_progress`). The ' +
        'decision arrives through the loan: poll `GET Customer/Loans/{loanId}` for its next status.',
      security: lendingSecurity.user,
      request: { params: loanIdParams, query: commentsQuery },
      responses: loanAnswer('The loan after processing'),
    }),
  handler: () => async (c) => {
    const { loanId } = c.req.valid('param');
    const { comments } = c.req.valid('query');
    return c.json(
      await lending.sendForProcessing(c.get('deps'), { caller: customerCaller(c), loanId, comments }),
      200,
    );
  },
});
