import { createRoute, z } from '@hono/zod-openapi';
import { and, desc, eq } from 'drizzle-orm';
import { messagingSenderIds } from '../../db/schema/messaging.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineMessagingOperation } from './auth.ts';
import { SENDER_ID_STATUSES, senderIdSchema, toRecord } from './sender-id-records.ts';

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
  handler: () => async (c) => {
    const { status, page, size } = c.req.valid('query');
    const conditions = [eq(messagingSenderIds.accountId, c.get('accountId'))];
    if (status) conditions.push(eq(messagingSenderIds.status, status));
    const rows = await c
      .get('deps')
      .db.select()
      .from(messagingSenderIds)
      .where(and(...conditions))
      .orderBy(desc(messagingSenderIds.createdAt), desc(messagingSenderIds.id))
      .limit(size)
      .offset((page - 1) * size);
    return c.json({ page, size, items: rows.map(toRecord) }, 200);
  },
});
