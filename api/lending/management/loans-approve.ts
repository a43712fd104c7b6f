import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { managementCaller } from '../callers.ts';
import { commentsQuery } from '../customer/loans-process.ts';
import { loanAnswer, loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

/**
 * `POST /Management/Loans/{loanId}/Approve?comments=`: only in Waiting for approval. An accepted offer →
 * Approved; a loan referred by the bureau (no offer yet) → Offer confirmation with its offer (design).
 */
export const managementLoansApproveOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Management/Loans/{loanId}/Approve'),
      tags: ['Management loans'],
      summary: 'Approve the loan',
      description:
        'Only in Waiting for approval (else 409 `invalid_loan_status`). After an accepted offer the loan is ' +
        'Approved (ready for its disbursement) once every system document is signed (else 409 `documents_not_signed` ' +
        'naming them); a loan referred by the credit bureau gets its offer (Offer confirmation).',
      security: lendingSecurity.apiKey,
      request: { params: loanIdParams, query: commentsQuery },
      responses: loanAnswer('The approved loan'),
    }),
  handler: () => async (c) => {
    const { loanId } = c.req.valid('param');
    const deps = c.get('deps');
    const { comments } = c.req.valid('query');
    return c.json(await lending.approveLoan(deps, { caller: managementCaller(c), loanId, comments }), 200);
  },
});
