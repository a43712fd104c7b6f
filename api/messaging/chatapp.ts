import { createRoute } from '@hono/zod-openapi';
import { acceptMessage } from '../../application/messaging/messages.ts';
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
    const accepted = await acceptMessage(
      c.get('deps'),
      c.get('accountId'),
      'chatapp',
      c.req.valid('json'),
      c.req.valid('header')['idempotency-key'],
    );
    return c.json(accepted, 202);
  },
});
