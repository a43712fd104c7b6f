import { createRoute } from '@hono/zod-openapi';
import { sendSigningCode } from '../../application/lending/signing-codes.ts';
import { publicBaseUrl } from '../shared/public-url.ts';
import { defineLendingOperation, lendingSecurity, requireCustomer } from './auth.ts';
import { docTypeQuery, documentErrorResponses, signingCodeSentSchema } from './document-schemas.ts';
import { documentToDecide } from './loan-documents.ts';
import { customerLoan, loanIdParams } from './loan-records.ts';
import { lendingPath } from './paths.ts';

/**
 * `POST /Customer/Loans/{loanId}/ResendSmsCode?docTypeId=`: sends a code (the first, or a new one) by SMS
 * to the customer's phone through the messaging gateway (from an activity, decision 0047); the previous
 * code of the document is dead.
 */
export const resendSmsCodeOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/Customer/Loans/{loanId}/ResendSmsCode'),
      tags: ['Customer loan documents'],
      summary: 'Send a new signing code by SMS',
      description:
        'A new six-digit code for the document goes to the customer’s phone (Customer/Details) by SMS; any code ' +
        'sent before for it no longer works. The code is valid LENDING_SIGNING_CODE_TTL (10 minutes) for ' +
        'LENDING_SIGNING_CODE_ATTEMPTS (5) tries. The answer never carries the code. Only in Waiting for approval ' +
        'with an accepted offer, for a document neither signed nor declined.',
      security: lendingSecurity.user,
      request: { params: loanIdParams, query: docTypeQuery },
      responses: {
        202: {
          description: 'The SMS is accepted by the messaging gateway',
          content: { 'application/json': { schema: signingCodeSentSchema } },
        },
        ...documentErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    const row = await customerLoan(c, customerId, c.req.valid('param').loanId);
    const { document } = await documentToDecide(
      c.get('deps').db,
      row,
      'resendSmsCode',
      c.req.valid('query').docTypeId,
    );
    return c.json(await sendSigningCode(c.get('deps'), row, document, { apiBaseUrl: publicBaseUrl(c) }), 202);
  },
});
