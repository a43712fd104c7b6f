import { createRoute, z } from '@hono/zod-openapi';
import { messaging, SENDER_ID_STATUSES } from '../../application/messaging/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineMessagingOperation } from './auth.ts';
import { senderIdSchema } from './sender-id-schemas.ts';

/** `GET /senderId`: the account's sender-ID registrations, newest first. */
export const senderIdListOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/senderId',
      tags: ['Sender IDs'],
      summary: 'List sender IDs',
      description: 'Registrations of your account, newest first.',
      request: {
        query: z.object({
          status: z.enum(SENDER_ID_STATUSES).optional().openapi({ example: 'approved' }),
          page: z.coerce.number().int().min(1).default(1).openapi({ example: 1 }),
          size: z.coerce.number().int().min(1).max(200).default(50).openapi({ example: 50 }),
        }),
      },
      responses: {
        200: {
          description: 'Sender IDs',
          content: {
            'application/json': {
              schema: z.object({ page: z.number(), size: z.number(), items: z.array(senderIdSchema) }),
            },
          },
        },
        ...errorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      await messaging.listSenderIds(c.get('deps'), {
        accountId: c.get('accountId'),
        ...c.req.valid('query'),
      }),
      200,
    ),
});
