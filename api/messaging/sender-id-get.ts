import { createRoute } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineMessagingOperation } from './auth.ts';
import { idParams, senderIdSchema } from './sender-id-schemas.ts';

/** `GET /senderId/{id}`: one sender-ID registration of the account. */
export const senderIdGetOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/senderId/{id}',
      tags: ['Sender IDs'],
      summary: 'Get a sender ID registration',
      request: { params: idParams },
      responses: {
        200: {
          description: 'The registration',
          content: { 'application/json': { schema: senderIdSchema } },
        },
        ...errorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      await messaging.getSenderId(c.get('deps'), {
        accountId: c.get('accountId'),
        id: c.req.valid('param').id,
      }),
      200,
    ),
});
