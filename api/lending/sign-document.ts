import { createRoute, z } from '@hono/zod-openapi';
import { signWithCode } from '../../application/lending/signing-codes.ts';
import { defineLendingOperation, lendingSecurity, requireCustomer } from './auth.ts';
import { docTypeIdSchema, documentErrorResponses, loanDocumentSchema } from './document-schemas.ts';
import { documentsOfLoan, documentToDecide, documentView } from './loan-documents.ts';
import { customerLoan, loanIdParams } from './loan-records.ts';
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
    const deps = c.get('deps');
    const { db } = deps;
    const user = requireCustomer(c);
    const row = await customerLoan(c, user.customerId, c.req.valid('param').loanId);
    const { code, docTypeId } = c.req.valid('query');
    const { document } = await documentToDecide(db, row, 'signDocument', docTypeId);
    await signWithCode(deps, row, document, code, user.id);
    const loan = await documentsOfLoan(db, row);
    return c.json(documentView(loan, document), 200);
  },
});
