import { createRoute, z } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineMessagingOperation } from './auth.ts';
import { senderNumberSchema } from './numbers-schemas.ts';

/** `GET /numbers` (beyond the spec, decision 0028): the account's `from` numbers, newest first. */
export const numbersListOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/numbers',
      tags: ['Sender numbers'],
      summary: 'List `from` numbers',
      description:
        'Beyond the spec. Numbers of your account, verified or waiting for their code, newest first.',
      request: {
        query: z.object({
          status: z.enum(['pending', 'verified']).optional().openapi({ example: 'verified' }),
          page: z.coerce.number().int().min(1).default(1).openapi({ example: 1 }),
          size: z.coerce.number().int().min(1).max(200).default(50).openapi({ example: 50 }),
        }),
      },
      responses: {
        200: {
          description: 'Numbers',
          content: {
            'application/json': {
              schema: z.object({ page: z.number(), size: z.number(), items: z.array(senderNumberSchema) }),
            },
          },
        },
        ...errorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      await messaging.listNumbers(c.get('deps'), { accountId: c.get('accountId'), ...c.req.valid('query') }),
      200,
    ),
});
