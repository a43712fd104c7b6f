import { createRoute } from '@hono/zod-openapi';
import { Refusal } from '../../application/shared/refusal.ts';
import { LoanRefusal } from '../../domain/lending/loan-lifecycle.ts';
import { approveUpdate } from '../../domain/lending/loan-process.ts';
import { defineLendingOperation, lendingSecurity } from './auth.ts';
import { commentsQuery } from './customer-loans-process.ts';
import { documentsOfLoan, unsignedDocuments } from './loan-documents.ts';
import { actorOf, loanAnswer, loanIdParams, loanView, moveLoan, tenantLoan } from './loan-records.ts';
import { lendingPath } from './paths.ts';

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
    const row = await tenantLoan(c, c.req.valid('param').loanId);
    const { comments } = c.req.valid('query');
    // An accepted offer is approved once every system document is signed (decision 0040).
    const unsigned = row.acceptedOfferId
      ? unsignedDocuments(await documentsOfLoan(c.get('deps').db, row))
      : [];
    if (row.status === 'Waiting for approval' && unsigned.length > 0) {
      throw Refusal.conflict(
        LoanRefusal.documentsNotSigned,
        `the customer has not signed: ${unsigned.map((document) => `${document.name} (${document.docTypeId})`).join(', ')}`,
      );
    }
    const moved = await moveLoan(c.get('deps'), row, 'approve', (loan) =>
      loan.executeUpdate(approveUpdate, {
        args: [{ by: actorOf(c), comments, documentsSigned: unsigned.length === 0 }],
      }),
    );
    return c.json(await loanView(c.get('deps').db, moved, 'management'), 200);
  },
});
