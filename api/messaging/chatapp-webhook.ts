import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { messaging } from '../../application/messaging/index.ts';
import { errorBodySchema } from '../shared/errors.ts';
import type { MessagingEnv } from './auth.ts';

/**
 * The chat-app provider's webhook (decision 0062), the callback URL configured at the WhatsApp Cloud
 * API: `GET /chatapp/webhook` answers its subscription check, `POST /chatapp/webhook` takes its signed
 * status events. Outside the access-token gate: the caller is the provider, authenticated by the verify
 * token and the body's signature (application/messaging/chatapp-webhook.ts).
 */
export const CHATAPP_WEBHOOK_PATH = '/chatapp/webhook';

const errorContent = { 'application/json': { schema: errorBodySchema } };

const verifyRoute = createRoute({
  method: 'get',
  path: CHATAPP_WEBHOOK_PATH,
  tags: ['Provider callbacks'],
  summary: 'Subscription check of the chat-app provider (WhatsApp Cloud API)',
  security: [],
  request: {
    query: z.object({
      'hub.mode': z.string().optional().openapi({ example: 'subscribe' }),
      'hub.verify_token': z.string().optional().openapi({ description: 'CHATAPP_VERIFY_TOKEN' }),
      'hub.challenge': z.string().optional().openapi({ example: '1158201444' }),
    }),
  },
  responses: {
    200: { description: 'The challenge, as it was sent', content: { 'text/plain': { schema: z.string() } } },
    403: { description: '`verify_token_invalid`', content: errorContent },
  },
});

const notificationRoute = createRoute({
  method: 'post',
  path: CHATAPP_WEBHOOK_PATH,
  tags: ['Provider callbacks'],
  summary: 'Status events of chat-app messages (WhatsApp Cloud API webhook)',
  description:
    'Signed with `X-Hub-Signature-256: sha256=<HMAC-SHA256 of the raw body with CHATAPP_APP_SECRET>`, checked ' +
    'before the body is read as JSON. `entry[].changes[].value.statuses[]`: `delivered` and `read` make the ' +
    'message delivered, `failed` undeliverable; `sent` changes nothing.',
  security: [],
  // The raw body is read by the handler: its signature is checked on the bytes as sent.
  responses: {
    200: {
      description: 'Taken (statuses of unknown or finished messages are ignored)',
      content: {
        'application/json': {
          schema: z.object({ statuses: z.number().int(), applied: z.number().int() }),
        },
      },
    },
    400: {
      description: '`malformed_request` or `validation_failed` (signed, but not a notification)',
      content: errorContent,
    },
    401: { description: '`signature_missing`', content: errorContent },
    403: { description: '`signature_invalid`', content: errorContent },
  },
});

export function registerChatAppWebhookRoutes(app: OpenAPIHono<MessagingEnv>): void {
  app.openapi(verifyRoute, (c) => {
    const query = c.req.valid('query');
    const challenge = messaging.checkChatAppSubscription(c.get('deps'), {
      mode: query['hub.mode'],
      verifyToken: query['hub.verify_token'],
      challenge: query['hub.challenge'],
    });
    return c.text(challenge, 200);
  });
  app.openapi(notificationRoute, async (c) => {
    const rawBody = new Uint8Array(await c.req.arrayBuffer());
    const outcome = await messaging.receiveChatAppNotification(c.get('deps'), {
      rawBody,
      signature: c.req.header('x-hub-signature-256'),
    });
    return c.json(outcome, 200);
  });
}
