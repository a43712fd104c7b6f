import { createRoute, z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { Refusal } from '../../application/shared/refusal.ts';
import { messagingMessages } from '../../db/schema/messaging.ts';
import { MESSAGE_STATUSES, type MessageStatus } from '../../domain/messaging/delivery-receipt.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineMessagingOperation } from './auth.ts';

/** `GET /sms/{id}`: one message of the account (SMS or chat-app) and its delivery status. */

const messageSchema = z
  .object({
    id: z.string(),
    channel: z.enum(['sms', 'chatapp']),
    status: z
      .enum(MESSAGE_STATUSES)
      .openapi({ description: 'accepted → scheduled → sending → submitted → a final status' }),
    to: z.string(),
    from: z.string(),
    message: z.string(),
    encoding: z.enum(['GSM-7', 'UCS-2', 'UTF-8']),
    parts: z.number().int(),
    scheduled: z.string().nullable(),
    dlrUrl: z.string().nullable(),
    error: z.string().nullable().openapi({ description: 'Carrier error code or reason of a failed message' }),
    createdAt: z.string(),
    submittedAt: z.string().nullable(),
    doneAt: z.string().nullable(),
  })
  .openapi('Message');

export const smsGetOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/sms/{id}',
      tags: ['Messages'],
      summary: 'Get a message and its delivery status',
      description: 'Any message of your account (SMS or chat-app), from the read model.',
      request: { params: z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) }) },
      responses: {
        200: { description: 'The message', content: { 'application/json': { schema: messageSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const [row] = await c
      .get('deps')
      .db.select()
      .from(messagingMessages)
      .where(
        and(
          eq(messagingMessages.id, c.req.valid('param').id),
          eq(messagingMessages.accountId, c.get('accountId')),
        ),
      );
    if (!row) throw Refusal.notFound('Message');
    return c.json(
      {
        id: row.id,
        channel: row.channel,
        status: row.status as MessageStatus,
        to: row.to,
        from: row.from,
        message: row.message,
        encoding: row.encoding,
        parts: row.parts,
        scheduled: row.scheduled?.toISOString() ?? null,
        dlrUrl: row.dlrUrl,
        error: row.error,
        createdAt: row.createdAt.toISOString(),
        submittedAt: row.submittedAt?.toISOString() ?? null,
        doneAt: row.doneAt?.toISOString() ?? null,
      },
      200,
    );
  },
});
