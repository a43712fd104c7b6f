import { createRoute, z } from '@hono/zod-openapi';
import { and, desc, eq } from 'drizzle-orm';
import { messagingSenderNumbers } from '../../db/schema/messaging.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineMessagingOperation } from './auth.ts';
import { senderNumberSchema, toNumberRecord } from './numbers-records.ts';

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
  handler: () => async (c) => {
    const { status, page, size } = c.req.valid('query');
    const { db, config } = c.get('deps');
    const conditions = [eq(messagingSenderNumbers.accountId, c.get('accountId'))];
    if (status) conditions.push(eq(messagingSenderNumbers.status, status));
    const rows = await db
      .select()
      .from(messagingSenderNumbers)
      .where(and(...conditions))
      .orderBy(desc(messagingSenderNumbers.createdAt), desc(messagingSenderNumbers.id))
      .limit(size)
      .offset((page - 1) * size);
    return c.json({ page, size, items: rows.map((row) => toNumberRecord(row, config)) }, 200);
  },
});
