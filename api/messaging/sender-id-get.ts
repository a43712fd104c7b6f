import { createRoute } from '@hono/zod-openapi';
import { getSenderId } from '../../application/messaging/sender-ids.ts';
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
    c.json(await getSenderId(c.get('deps'), c.get('accountId'), c.req.valid('param').id), 200),
});
