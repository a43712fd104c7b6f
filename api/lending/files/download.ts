import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { downloadResponses, fileIdQuery } from '../file-schemas.ts';
import { fileAnswer, userFileCaller } from '../file-transfer.ts';
import { lendingPath } from '../paths.ts';

/** `GET /Files/Download?fileId=`: one of the user's files, streamed (404 for anyone else's). */
export const filesDownloadOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Files/Download'),
      tags: ['Files'],
      summary: 'Download a file',
      description: 'The content of a file the user uploaded, exactly as stored; 404 for another user’s file.',
      security: lendingSecurity.user,
      request: { query: fileIdQuery },
      responses: downloadResponses,
    }),
  handler: () => async (c) => {
    const { info, content } = await lending.openFile(c.get('deps'), {
      caller: userFileCaller(c),
      fileId: c.req.valid('query').fileId,
    });
    return fileAnswer(c, info, content);
  },
});
