import { createRoute, z } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineMessagingOperation } from './auth.ts';
import { numberIdParams, senderNumberSchema } from './numbers-schemas.ts';

/**
 * `POST /numbers/{id}/verify` (a design addition beyond the spec, decision 0028): proves the account owns
 * the number with the code sent to it (every try counted, at most NUMBER_VERIFICATION_MAX_ATTEMPTS).
 */
export const numbersVerifyOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/numbers/{id}/verify',
      tags: ['Sender numbers'],
      summary: 'Prove a `from` number with its code',
      description:
        'Beyond the spec. Verifies the number with the code sent to it by POST /numbers; from then on it may be used as ' +
        '`from`. 422 `verification_code_wrong` (the answer says how many attempts are left), ' +
        '`verification_code_expired`, `verification_attempts_exceeded`; 409 `number_already_verified`.',
      request: {
        params: numberIdParams,
        body: jsonBody(
          z
            .object({
              code: z
                .string()
                .regex(/^\d{6}$/, 'six digits')
                .openapi({ description: 'The code received by SMS', example: '482913' }),
            })
            .openapi('SenderNumberVerification'),
        ),
      },
      responses: {
        200: { description: 'Verified', content: { 'application/json': { schema: senderNumberSchema } } },
        ...errorResponses,
        409: { description: 'Already verified', content: errorResponses[400].content },
        422: { description: 'Wrong, expired or used-up code', content: errorResponses[400].content },
      },
    }),
  handler: () => async (c) =>
    c.json(
      await messaging.verifyNumber(c.get('deps'), {
        accountId: c.get('accountId'),
        id: c.req.valid('param').id,
        code: c.req.valid('json').code,
      }),
      200,
    ),
});
