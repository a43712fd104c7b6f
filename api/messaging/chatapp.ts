import { createRoute } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { defineMessagingOperation } from './auth.ts';
import { sendMessageRoute } from './send-message-route.ts';

/** `POST /chatapp`: accepts a chat-app message; the same message workflow (`sms-<id>`) as an SMS delivers it. */
export const chatappOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/chatapp',
      summary: 'Send a chat-app message',
      ...sendMessageRoute,
    }),
  handler: () => async (c) => {
    const accepted = await messaging.sendChatApp(c.get('deps'), {
      accountId: c.get('accountId'),
      request: c.req.valid('json'),
      idempotencyKey: c.req.valid('header')['idempotency-key'],
    });
    return c.json(accepted, 202);
  },
});
