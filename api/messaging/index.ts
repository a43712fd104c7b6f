import { OpenAPIHono } from '@hono/zod-openapi';
import { referencePage } from '../shared/docs.ts';
import { validationHook } from '../shared/errors.ts';
import { registerWebhookRoutes } from '../shared/webhook-routes.ts';
import { type MessagingEnv, requireAccessToken } from './auth.ts';
import { registerHlrRoutes } from './hlr.ts';
import { registerReferenceRoutes } from './reference.ts';
import { registerSenderIdRoutes } from './sender-ids.ts';
import { registerSmsRoutes } from './sms.ts';

/**
 * The messaging gateway (spec part B), mounted under /messaging.
 * Each register* function adds the operations of one resource; all of them require the `at` token.
 */
export function createMessagingApi(): OpenAPIHono<MessagingEnv> {
  const app = new OpenAPIHono<MessagingEnv>({ defaultHook: validationHook });

  app.openAPIRegistry.registerComponent('securitySchemes', 'accessToken', {
    type: 'apiKey',
    in: 'query',
    name: 'at',
    description: 'Access token issued with `npm run admin -- messaging:token`',
  });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Messaging gateway',
      version: '1.0.0',
      description: 'SMS, chat-app messages, number lookup (HLR), sender IDs, number data and rates.',
    },
    servers: [{ url: '/messaging' }],
    security: [{ accessToken: [] }],
  });
  app.get('/docs', (c) => c.html(referencePage('Messaging gateway API', '/messaging/openapi.json')));

  app.use('*', async (c, next) => {
    if (c.req.path.endsWith('/openapi.json') || c.req.path.endsWith('/docs')) return next();
    return requireAccessToken(c, next);
  });

  registerSmsRoutes(app);
  registerSenderIdRoutes(app);
  registerHlrRoutes(app);
  registerReferenceRoutes(app);
  registerWebhookRoutes(app, { service: 'messaging', ownerOf: (c) => c.get('accountId') });
  return app;
}
