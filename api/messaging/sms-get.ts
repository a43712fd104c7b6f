import { createRoute, z } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { MESSAGE_STATUSES } from '../../domain/messaging/delivery-receipt.ts';
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
    message: z.string().openapi({ description: 'The text; masked (digits as `*`) when `containsCode`' }),
    containsCode: z
      .boolean()
      .openapi({ description: 'The request flagged the text as carrying a one-time code' }),
    encoding: z.enum(['GSM-7', 'UCS-2', 'UTF-8']),
    parts: z.number().int(),
    scheduled: z.string().nullable(),
    dlrUrl: z.string().nullable(),
    error: z.string().nullable().openapi({ description: 'Carrier error code or reason of a failed message' }),
    createdAt: z.string(),
    submittedAt: z.string().nullable(),
    doneAt: z.string().nullable(),
    process: z.string().nullable().openapi({
      description:
        'The workflow that follows the message (Temporal Web UI): `sms-batch-…` for an SMS handed over in a batch, `sms-<id>` for a message with its own; null until handed over',
    }),
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
  handler: () => async (c) =>
    c.json(
      await messaging.getSms(c.get('deps'), { accountId: c.get('accountId'), id: c.req.valid('param').id }),
      200,
    ),
});
