import { createRoute } from '@hono/zod-openapi';
import { DOCUMENT_DECLINED_REASON, recordDecline } from '../../application/lending/signing-codes.ts';
import { cancelUpdate } from '../../domain/lending/loan-process.ts';
import { defineLendingOperation, lendingSecurity, requireCustomer } from './auth.ts';
import { docTypeQuery, documentErrorResponses } from './document-schemas.ts';
import { documentToDecide } from './loan-documents.ts';
import { actorOf, customerLoan, loanIdParams, loanSchema, loanView, moveLoan } from './loan-records.ts';
import { lendingPath } from './paths.ts';

/**
 * `POST /Customer/Loans/{loanId}/DeclineDocument?docTypeId=`: the customer will not sign; the application
 * ends (Cancelled, reason `document_declined`) through the loan workflow's cancel (decision 0040).
 */
export const declineDocumentOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Customer/Loans/{loanId}/DeclineDocument'),
      tags: ['Customer loan documents'],
      summary: 'Decline a system document',
      description:
        'The document is recorded as declined and the loan is closed as Cancelled with the reason ' +
        '`document_declined`. Only in Waiting for approval with an accepted offer, for an unsigned document.',
      security: lendingSecurity.user,
      request: { params: loanIdParams, query: docTypeQuery },
      responses: {
        200: { description: 'The loan, Cancelled', content: { 'application/json': { schema: loanSchema } } },
        ...documentErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { db } = c.get('deps');
    const user = requireCustomer(c);
    const row = await customerLoan(c, user.customerId, c.req.valid('param').loanId);
    const { document } = await documentToDecide(db, row, 'declineDocument', c.req.valid('query').docTypeId);
    // Recorded first: a crash before the cancel leaves the decline, and DeclineDocument again finishes it.
    await recordDecline(db, row, document, user.id);
    const moved = await moveLoan(c.get('deps'), row, 'cancel', (loan) =>
      loan.executeUpdate(cancelUpdate, {
        args: [
          {
            by: actorOf(c),
            reasonId: DOCUMENT_DECLINED_REASON,
            comments: `the customer declined the ${document.name}`,
          },
        ],
      }),
    );
    return c.json(await loanView(db, moved, 'customer'), 200);
  },
});
