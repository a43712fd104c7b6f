import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from './auth.ts';
import { userDocumentsQuery, userDocumentsSchema } from './file-schemas.ts';
import { userDocumentsCaller } from './file-transfer.ts';
import { lendingPath } from './paths.ts';

/** `GET /UserDocuments?dashboardMode=&loanMode=&loanId=`: the document groups with the customer's files. */
export const userDocumentsGetOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/UserDocuments'),
      tags: ['User documents'],
      summary: 'Document groups with the customer’s files',
      description:
        'The document groups the tenant’s credit products require (`requiredDocuments`), each with the files the ' +
        'customer placed in it. `loanMode=true`: only the groups of `loanId` (404 for a loan not the customer’s) or, ' +
        'without it, of the customer’s open loans; `loanMode=false`: every group of the tenant. `required` marks the ' +
        'groups a loan in view needs; `dashboardMode=true` leaves out groups neither required nor holding a file. ' +
        '`missingGroupIds`: required groups still empty (Management Approve waits for them).',
      security: lendingSecurity.user,
      request: { query: userDocumentsQuery },
      responses: {
        200: { description: 'The groups', content: { 'application/json': { schema: userDocumentsSchema } } },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      await lending.listUserDocuments(c.get('deps'), {
        caller: userDocumentsCaller(c),
        ...c.req.valid('query'),
      }),
      200,
    ),
});
