import { createRoute, z } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineMessagingOperation } from './auth.ts';

/** `GET /sms`: the account's messages that wait for their scheduled time. */

const scheduledMessageSchema = z
  .object({
    id: z.string(),
    scheduled: z.string().openapi({ example: '2026-12-01T09:00:00.000Z' }),
    from: z.string(),
    to: z.string(),
    message: z.string(),
    dlrUrl: z.string().nullable(),
  })
  .openapi('ScheduledMessage');

export const smsListOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/sms',
      tags: ['Messages'],
      summary: 'List scheduled messages',
      description: 'Messages of your account that wait for their scheduled time, earliest first.',
      request: {
        query: z.object({
          scheduled: z.iso.date().optional().openapi({
            description: 'Only messages scheduled on this UTC day (YYYY-MM-DD)',
            example: '2026-12-01',
          }),
          page: z.coerce.number().int().min(1).default(1).openapi({ example: 1 }),
          size: z.coerce.number().int().min(1).max(200).default(50).openapi({ example: 50 }),
        }),
      },
      responses: {
        200: {
          description: 'Scheduled messages',
          content: {
            'application/json': {
              schema: z.object({
                page: z.number(),
                size: z.number(),
                items: z.array(scheduledMessageSchema),
              }),
            },
          },
        },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { scheduled, page, size } = c.req.valid('query');
    const listed = await messaging.listScheduledSms(c.get('deps'), {
      accountId: c.get('accountId'),
      scheduledOn: scheduled,
      page,
      size,
    });
    return c.json(listed, 200);
  },
});
