import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { documentIdParams, fileInfoResponses } from '../file-schemas.ts';
import { userFileCaller } from '../file-transfer.ts';
import { lendingPath } from '../paths.ts';

/** `GET /Files/GetInfo/{documentId}`: one of the user's files (404 for anyone else's). */
export const filesGetInfoOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Files/GetInfo/{documentId}'),
      tags: ['Files'],
      summary: 'File information',
      description: 'Name, type, size and SHA-256 of a file the user uploaded; 404 for another user’s file.',
      security: lendingSecurity.user,
      request: { params: documentIdParams },
      responses: fileInfoResponses,
    }),
  handler: () => async (c) =>
    c.json(
      await lending.getFileInfo(c.get('deps'), {
        caller: userFileCaller(c),
        fileId: c.req.valid('param').documentId,
      }),
      200,
    ),
});
