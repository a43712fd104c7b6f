import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { uploadBody, uploadResponses } from '../file-schemas.ts';
import { managementFileCaller, readUpload } from '../file-transfer.ts';
import { LENDING_API_PREFIX, lendingPath } from '../paths.ts';

/** `POST /Management/Files/Upload` (also `/Migration/Files/Upload`): a file of the tenant, or of one of its customers. */
export const managementFilesUploadOperation = defineLendingOperation({
  aliases: [`${LENDING_API_PREFIX}/Migration/Files/Upload`],
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Management/Files/Upload'),
      tags: ['Management files'],
      summary: 'Upload a file',
      description:
        'As Files/Upload; with a `customerId` field (before the file part) the file belongs to that customer (404 for ' +
        'a customer of another tenant), who then sees it and may place it in a document group. Also served at ' +
        '`/Migration/Files/Upload`.',
      security: lendingSecurity.apiKey,
      request: { body: uploadBody(true) },
      responses: uploadResponses,
    }),
  handler: () => async (c) => {
    const upload = await readUpload(c, ['customerId']);
    return c.json(await lending.uploadFile(c.get('deps'), { caller: managementFileCaller(c), upload }), 201);
  },
});
