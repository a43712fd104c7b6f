import { createRoute, z } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineMessagingOperation } from './auth.ts';
import { senderNumberSchema } from './numbers-schemas.ts';

/**
 * `POST /numbers` (a design addition beyond the spec, decision 0028): sends a verification code by SMS
 * to a number the account wants to send `from`, through the workflow `numbers-<challengeId>`. Asking
 * again gives a new code only once the current one has expired or used up its attempts.
 */
export const numbersRegisterOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/numbers',
      tags: ['Sender numbers'],
      summary: 'Send a verification code to a `from` number',
      description:
        'Beyond the spec. Messages may come `from` a phone number only after the account proved it owns it: this sends ' +
        'a six-digit code by SMS to the number; enter it with POST /numbers/{id}/verify before `codeExpiresAt`. ' +
        'Asking again sends a new code once the current one has expired or has no attempts left ' +
        '(409 `verification_code_pending` before); 409 `number_already_verified` for a verified number.',
      request: {
        body: jsonBody(
          z
            .object({
              number: z
                .string()
                .min(1)
                .max(32)
                .openapi({ description: 'The number, international format', example: '+359888000111' }),
            })
            .openapi('SenderNumberRequest'),
        ),
      },
      responses: {
        202: {
          description: 'The code is being sent',
          content: { 'application/json': { schema: senderNumberSchema } },
        },
        ...errorResponses,
        409: { description: 'Conflict; `code` says which', content: errorResponses[400].content },
      },
    }),
  handler: () => async (c) =>
    c.json(
      await messaging.registerNumber(c.get('deps'), {
        accountId: c.get('accountId'),
        ...c.req.valid('json'),
      }),
      202,
    ),
});
