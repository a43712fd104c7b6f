import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { documentCaller } from '../callers.ts';
import { documentErrorResponses, loanDocumentSchema } from '../document-schemas.ts';
import { loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

/**
 * `GET /Customer/Loans/{loanId}/Documents`: the loan's system documents (decision 0040): none before an
 * offer is accepted; then the pre-contract information and the loan agreement of the accepted offer.
 */
export const documentsOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Customer/Loans/{loanId}/Documents'),
      tags: ['Customer loan documents'],
      summary: 'The loan’s system documents',
      description:
        'Generated from the accepted offer once the customer accepts it (empty before), each `unsigned`, `signed` ' +
        'or `declined`. They are signed in Waiting for approval with a code sent by SMS (ResendSmsCode, ' +
        'SignDocument); management approves the loan once all are signed.',
      security: lendingSecurity.user,
      request: { params: loanIdParams },
      responses: {
        200: {
          description: 'The documents',
          content: {
            'application/json': {
              schema: z.object({ documents: z.array(loanDocumentSchema) }).openapi('LoanDocuments'),
            },
          },
        },
        ...documentErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const documents = await lending.listLoanDocuments(c.get('deps'), {
      caller: documentCaller(c),
      loanId: c.req.valid('param').loanId,
    });
    return c.json({ documents }, 200);
  },
});
