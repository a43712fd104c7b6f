import { createRoute, z } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineMessagingOperation } from './auth.ts';
import { conflictResponse, senderIdSchema } from './sender-id-schemas.ts';

/** `POST /senderId`: registers a sender ID; the registration workflow (`sender-id-<id>`) expires it unless confirmed. */
export const senderIdRegisterOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/senderId',
      tags: ['Sender IDs'],
      summary: 'Register a sender ID',
      description:
        'Registers an alphanumeric sender (1-11 letters, digits, spaces, `. - _ &`) or a phone number as a sender of this ' +
        'account. The registration is pending until confirmed with POST /senderId/confirm/{id} and expires at `expiresAt`; ' +
        'once confirmed it waits for an operator to approve it, and only then may it be used as `from`. ' +
        'Registering a sender ID that is already pending, confirmed or approved answers 409 `sender_id_exists`.',
      request: {
        body: jsonBody(
          z
            .object({
              senderId: z
                .string()
                .min(1)
                .max(32)
                .openapi({ description: 'Alphanumeric sender or phone number', example: 'ACME' }),
              description: z.string().max(200).optional().openapi({ example: 'Order notifications' }),
            })
            .openapi('SenderIdRequest'),
        ),
      },
      responses: {
        202: {
          description: 'Registered, waiting for confirmation',
          content: { 'application/json': { schema: senderIdSchema } },
        },
        ...errorResponses,
        409: conflictResponse,
      },
    }),
  handler: () => async (c) =>
    c.json(
      await messaging.registerSenderId(c.get('deps'), {
        accountId: c.get('accountId'),
        ...c.req.valid('json'),
      }),
      202,
    ),
});
