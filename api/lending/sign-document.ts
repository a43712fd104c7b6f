import { createRoute, z } from '@hono/zod-openapi';
import { loanOf } from '../../application/lending/loans.ts';
import { defineLendingOperation, lendingSecurity, requireCustomer } from './auth.ts';
import {
  docTypeIdSchema,
  documentErrorResponses,
  documentsOfLoan,
  documentToDecide,
  documentView,
  loanDocumentSchema,
  signWithCode,
} from './loan-document-records.ts';
import { loanIdParams } from './loan-schemas.ts';
import { lendingPath } from './paths.ts';

/** `POST /Customer/Loans/{loanId}/SignDocument?code=&docTypeId=`: signs a system document with the SMS code. */
export const signDocumentOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Customer/Loans/{loanId}/SignDocument'),
      tags: ['Customer loan documents'],
      summary: 'Sign a system document with the SMS code',
      description:
        '`code` is the latest code sent for the document (ResendSmsCode). 400 naming `code`: ' +
        '`invalid_signing_code` (wrong; the message says how many attempts are left), `signing_code_expired`, ' +
        '`signing_code_exhausted` (tried too often: ask for a new one), `signing_code_used`; 409 ' +
        '`signing_code_not_sent`. Only in Waiting for approval with an accepted offer.',
      security: lendingSecurity.user,
      request: {
        params: loanIdParams,
        query: z.object({
          code: z
            .string()
            .trim()
            .regex(/^\d{6}$/, 'the six digits sent by SMS')
            .openapi({ example: '482913' }),
          docTypeId: docTypeIdSchema,
        }),
      },
      responses: {
        200: {
          description: 'The document, signed',
          content: { 'application/json': { schema: loanDocumentSchema } },
        },
        ...documentErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { db } = c.get('deps');
    const user = requireCustomer(c);
    const row = await loanOf(
      c.get('deps'),
      { tenantId: c.get('lendingTenant').id, customerId: user.customerId },
      c.req.valid('param').loanId,
    );
    const { code, docTypeId } = c.req.valid('query');
    const { document } = await documentToDecide(db, row, 'signDocument', docTypeId);
    await signWithCode(c, row, document, code, user.id);
    const loan = await documentsOfLoan(db, row);
    return c.json(documentView(loan, document), 200);
  },
});
