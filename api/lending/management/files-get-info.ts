import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { documentIdParams, fileInfoResponses } from '../file-schemas.ts';
import { managementFileCaller } from '../file-transfer.ts';
import { LENDING_API_PREFIX, lendingPath } from '../paths.ts';

/** `GET /Management/Files/GetInfo/{documentId}` (also under `/Migration/`): any file of the tenant, or a loan document. */
export const managementFilesGetInfoOperation = defineLendingOperation({
  aliases: [`${LENDING_API_PREFIX}/Migration/Files/GetInfo/{documentId}`],
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Management/Files/GetInfo/{documentId}'),
      tags: ['Management files'],
      summary: 'File information',
      description:
        'Any file uploaded in the tenant, or a loan’s system document by the id `loan-<loanId>-<docTypeId>` ' +
        '(e.g. `loan-1001-loan-agreement`: plain text, its SHA-256 is the document’s contentHash, `status` ' +
        'signed/declined/unsigned). 404 outside the tenant. Also served at `/Migration/Files/GetInfo/{documentId}`.',
      security: lendingSecurity.apiKey,
      request: { params: documentIdParams },
      responses: fileInfoResponses,
    }),
  handler: () => async (c) =>
    c.json(
      await lending.getFileInfo(c.get('deps'), {
        caller: managementFileCaller(c),
        fileId: c.req.valid('param').documentId,
      }),
      200,
    ),
});
