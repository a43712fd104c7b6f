import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { uploadBody, uploadResponses } from '../file-schemas.ts';
import { readUpload, userFileCaller } from '../file-transfer.ts';
import { lendingPath } from '../paths.ts';

/** `POST /Files/Upload`: a file of the user (multipart, streamed to the file storage). */
export const filesUploadOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Files/Upload'),
      tags: ['Files'],
      summary: 'Upload a file',
      description:
        'A `multipart/form-data` body with one part named `file` (its Content-Type one of LENDING_FILE_TYPES, at most ' +
        'LENDING_FILE_MAX_BYTES). The file belongs to the user of the token; place it in a document group with ' +
        'PUT UserDocuments. The file name is kept for display only.',
      security: lendingSecurity.user,
      request: { body: uploadBody(false) },
      responses: uploadResponses,
    }),
  handler: () => async (c) => {
    const caller = userFileCaller(c);
    const upload = await readUpload(c);
    return c.json(await lending.uploadFile(c.get('deps'), { caller, upload }), 201);
  },
});
