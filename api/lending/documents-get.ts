import { createRoute, z } from '@hono/zod-openapi';
import { Refusal } from '../../application/shared/refusal.ts';
import { defineLendingOperation, lendingSecurity, requireCustomer } from './auth.ts';
import {
  docTypeIdSchema,
  documentErrorResponses,
  loanDocumentWithContentSchema,
} from './document-schemas.ts';
import { documentsOfLoan, documentView } from './loan-documents.ts';
import { customerLoan, loanIdParams } from './loan-records.ts';
import { lendingPath } from './paths.ts';

/** `GET /Customer/Loans/{loanId}/Documents/{docTypeId}`: one system document with its text (decision 0040). */
export const documentsGetOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Customer/Loans/{loanId}/Documents/{docTypeId}'),
      tags: ['Customer loan documents'],
      summary: 'One system document',
      description:
        'The document with its text (`content`) and the hash a signature is given on. 404 for a document type the ' +
        'loan does not have (yet: documents come with the accepted offer).',
      security: lendingSecurity.user,
      request: {
        params: loanIdParams.extend({
          docTypeId: z
            .string()
            .max(60)
            .openapi({ param: { name: 'docTypeId', in: 'path' }, example: 'loan-agreement' }),
        }),
      },
      responses: {
        200: {
          description: 'The document',
          content: { 'application/json': { schema: loanDocumentWithContentSchema } },
        },
        ...documentErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    const { loanId, docTypeId } = c.req.valid('param');
    const row = await customerLoan(c, customerId, loanId);
    const known = docTypeIdSchema.safeParse(docTypeId);
    const loan = await documentsOfLoan(c.get('deps').db, row);
    const document = known.success
      ? loan.documents.find((candidate) => candidate.docTypeId === known.data)
      : undefined;
    if (!document) throw Refusal.notFound('Document');
    return c.json({ ...documentView(loan, document), content: document.content }, 200);
  },
});
