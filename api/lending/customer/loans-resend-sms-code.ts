import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { publicBaseUrl } from '../../shared/public-url.ts';
import { defineLendingOperation, lendingSecurity } from '../auth.ts';
import { documentCaller } from '../callers.ts';
import { docTypeQuery, documentErrorResponses, signingCodeSentSchema } from '../document-schemas.ts';
import { loanIdParams } from '../loan-schemas.ts';
import { lendingPath } from '../paths.ts';

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
    const { loanId } = c.req.valid('param');
    const { docTypeId } = c.req.valid('query');
    const sent = await lending.resendSigningCode(c.get('deps'), {
      caller: documentCaller(c),
      loanId,
      docTypeId,
      apiBaseUrl: publicBaseUrl(c),
    });
    return c.json(sent, 202);
  },
});
