import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { managementCaller } from '../callers.ts';
import { commentsQuery } from '../customer/loans-process.ts';
import { loanAnswer, loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

/** `POST /Management/Loans/{loanId}/Process?comments=`: sends a loan of the tenant for processing. */
export const managementLoansProcessOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Management/Loans/{loanId}/Process'),
      tags: ['Management loans'],
      summary: 'Send the loan for processing',
      description:
        'As the customer’s Process: only in Origination or Reprocessing (or Collateral once a collateral is ' +
        'registered); else 409 `invalid_loan_status` naming the current status. Answers at once, once the request is ' +
        'recorded; the bureau’s decision arrives through the loan: poll `GET Management/Loans/{loanId}`.',
      security: lendingSecurity.apiKey,
      request: { params: loanIdParams, query: commentsQuery },
      responses: loanAnswer('The loan after processing'),
    }),
  handler: () => async (c) => {
    const { loanId } = c.req.valid('param');
    const { comments } = c.req.valid('query');
    return c.json(
      await lending.sendForProcessing(c.get('deps'), { caller: managementCaller(c), loanId, comments }),
      200,
    );
  },
});
