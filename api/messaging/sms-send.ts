import { createRoute } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { defineMessagingOperation } from './auth.ts';
import { sendMessageRoute } from './send-message-route.ts';

/** `POST /sms`: accepts an SMS; the message workflow (`sms-<id>`) delivers it and reports to `dlrUrl`. */
export const smsSendOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/sms',
      summary: 'Send an SMS',
      ...sendMessageRoute,
    }),
  handler: () => async (c) => {
    const accepted = await messaging.sendSms(c.get('deps'), {
      accountId: c.get('accountId'),
      request: c.req.valid('json'),
      idempotencyKey: c.req.valid('header')['idempotency-key'],
    });
    return c.json(accepted, 202);
  },
});
