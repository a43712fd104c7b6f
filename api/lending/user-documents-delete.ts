import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from './auth.ts';
import { userDocumentsCaller } from './file-transfer.ts';
import { lendingPath } from './paths.ts';

/** `DELETE /UserDocuments/{UserDocumentId}`: a file out of its group (the file itself stays). */
export const userDocumentsDeleteOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'delete',
      path: lendingPath('/UserDocuments/{UserDocumentId}'),
      tags: ['User documents'],
      summary: 'Remove a file from its group',
      description: 'The file stays uploaded; 404 for a user document not the user’s.',
      security: lendingSecurity.user,
      request: {
        params: z.object({
          UserDocumentId: z
            .string()
            .min(1)
            .max(100)
            .openapi({ param: { name: 'UserDocumentId', in: 'path' }, example: 'udoc_Xk3EXAMPLEexample' }),
        }),
      },
      responses: { 204: { description: 'Removed' }, ...lendingErrorResponses },
    }),
  handler: () => async (c) => {
    await lending.removeUserDocument(c.get('deps'), {
      caller: userDocumentsCaller(c),
      userDocumentId: c.req.valid('param').UserDocumentId,
    });
    return c.body(null, 204);
  },
});
