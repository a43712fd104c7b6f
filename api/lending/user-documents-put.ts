import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../application/lending/index.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from './auth.ts';
import { attachUserDocumentBody, userDocumentAnswerSchema } from './file-schemas.ts';
import { userDocumentsCaller } from './file-transfer.ts';
import { lendingPath } from './paths.ts';

/** `PUT /UserDocuments`: an uploaded file of the user placed in a document group. */
export const userDocumentsPutOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'put',
      path: lendingPath('/UserDocuments'),
      tags: ['User documents'],
      summary: 'Place an uploaded file in a document group',
      description:
        '`fileId` of a file the user uploaded (404 otherwise) and `groupId` of a group the tenant’s credit products ' +
        'require (400 naming `groupId` otherwise). 201 with the new user document; the same file in the same group ' +
        'again answers 200 with the existing one.',
      security: lendingSecurity.user,
      request: { body: jsonBody(attachUserDocumentBody) },
      responses: {
        200: {
          description: 'Already in the group',
          content: { 'application/json': { schema: userDocumentAnswerSchema } },
        },
        201: { description: 'Placed', content: { 'application/json': { schema: userDocumentAnswerSchema } } },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { document, created } = await lending.attachUserDocument(c.get('deps'), {
      caller: userDocumentsCaller(c),
      ...c.req.valid('json'),
    });
    return created ? c.json(document, 201) : c.json(document, 200);
  },
});
