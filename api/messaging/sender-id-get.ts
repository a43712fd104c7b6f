import { createRoute } from '@hono/zod-openapi';
import { errorResponses } from '../shared/errors.ts';
import { defineMessagingOperation } from './auth.ts';
import { findOwn, idParams, senderIdSchema, toRecord } from './sender-id-records.ts';

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
    c.json(toRecord(await findOwn(c.get('deps').db, c.get('accountId'), c.req.valid('param').id)), 200),
});
