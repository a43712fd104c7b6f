import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { documentCaller } from '../callers.ts';
import { docTypeIdSchema, documentErrorResponses, loanDocumentSchema } from '../document-schemas.ts';
import { loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

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
        '`signing_code_not_sent` (naming `phone` when the phone is why no code was sent). Only in Waiting for ' +
        'approval with an accepted offer.',
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
    const { code, docTypeId } = c.req.valid('query');
    const loanId = c.req.valid('param').loanId;
    return c.json(
      await lending.signLoanDocument(c.get('deps'), { caller: documentCaller(c), loanId, docTypeId, code }),
      200,
    );
  },
});
