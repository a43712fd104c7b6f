import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { downloadResponses, fileIdQuery } from '../file-schemas.ts';
import { fileAnswer, managementFileCaller } from '../file-transfer.ts';
import { LENDING_API_PREFIX, lendingPath } from '../paths.ts';

/** `GET /Management/Files/Download?fileId=` (also under `/Migration/`): a file of the tenant or a loan document, streamed. */
export const managementFilesDownloadOperation = defineLendingOperation({
  aliases: [`${LENDING_API_PREFIX}/Migration/Files/Download`],
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Management/Files/Download'),
      tags: ['Management files'],
      summary: 'Download a file or a loan document',
      description:
        'Any file uploaded in the tenant; or a loan’s system document (`fileId=loan-<loanId>-<docTypeId>`, e.g. the ' +
        'signed agreement `loan-1001-loan-agreement`) as `text/plain; charset=utf-8`: exactly the text the customer ' +
        'signs, whose SHA-256 is the document’s contentHash. 404 outside the tenant. Also served at ' +
        '`/Migration/Files/Download`.',
      security: lendingSecurity.apiKey,
      request: { query: fileIdQuery },
      responses: downloadResponses,
    }),
  handler: () => async (c) => {
    const { info, content } = await lending.openFile(c.get('deps'), {
      caller: managementFileCaller(c),
      fileId: c.req.valid('query').fileId,
    });
    return fileAnswer(c, info, content);
  },
});
