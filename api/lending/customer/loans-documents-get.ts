import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { documentCaller } from '../callers.ts';
import { documentErrorResponses, loanDocumentWithContentSchema } from '../document-schemas.ts';
import { loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

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
    const { loanId, docTypeId } = c.req.valid('param');
    return c.json(
      await lending.getLoanDocument(c.get('deps'), { caller: documentCaller(c), loanId, docTypeId }),
      200,
    );
  },
});
