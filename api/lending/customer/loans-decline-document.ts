import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { documentCaller } from '../callers.ts';
import { docTypeQuery, documentErrorResponses } from '../document-schemas.ts';
import { loanIdParams, loanSchema } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

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
    const { loanId } = c.req.valid('param');
    const { docTypeId } = c.req.valid('query');
    return c.json(
      await lending.declineLoanDocument(c.get('deps'), { caller: documentCaller(c), loanId, docTypeId }),
      200,
    );
  },
});
