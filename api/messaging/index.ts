import { OpenAPIHono } from '@hono/zod-openapi';
import { referencePage } from '../shared/docs.ts';
import { validationHook } from '../shared/errors.ts';
import { mountOperations, type Operation } from '../shared/operation.ts';
import { registerWebhookRoutes } from '../shared/webhook-routes.ts';
import { type MessagingEnv, requireAccessToken } from './auth.ts';
import { chatappOperation } from './chatapp.ts';
import { CHATAPP_WEBHOOK_PATH, registerChatAppWebhookRoutes } from './chatapp-webhook.ts';
import { hlrGetOperation } from './hlr-get.ts';
import { hlrLookupOperation } from './hlr-lookup.ts';
import { inboundNumbersListOperation } from './inbound-numbers-list.ts';
import { inboundNumbersUpdateOperation } from './inbound-numbers-update.ts';
import { inboundOptOutsOperation } from './inbound-opt-outs.ts';
import { mccmncOperation } from './mccmnc.ts';
import { numberCorrectionOperation } from './number-correction.ts';
import { numbersListOperation } from './numbers-list.ts';
import { numbersRegisterOperation } from './numbers-register.ts';
import { numbersVerifyOperation } from './numbers-verify.ts';
import { operatorsOperation } from './operators.ts';
import { prefixesOperation } from './prefixes.ts';
import { ratesOperation } from './rates.ts';
import { senderIdConfirmOperation } from './sender-id-confirm.ts';
import { senderIdGetOperation } from './sender-id-get.ts';
import { senderIdListOperation } from './sender-id-list.ts';
import { senderIdRegisterOperation } from './sender-id-register.ts';
import { smsGetOperation } from './sms-get.ts';
import { smsListOperation } from './sms-list.ts';
import { smsSendOperation } from './sms-send.ts';

/** Every operation of the messaging gateway (api/shared/operation.ts); all of them require the `at` token. */
export const messagingOperations: readonly Operation<MessagingEnv>[] = [
  // Messages
  smsSendOperation,
  chatappOperation,
  smsGetOperation,
  smsListOperation,
  // Sender IDs
  senderIdRegisterOperation,
  senderIdConfirmOperation,
  senderIdGetOperation,
  senderIdListOperation,
  // `from` numbers proven by a code (beyond the spec, decision 0028)
  numbersRegisterOperation,
  numbersVerifyOperation,
  numbersListOperation,
  // Inbound SMS: numbers assigned by the operator, STOP / START (beyond the spec, decision 0087)
  inboundNumbersListOperation,
  inboundNumbersUpdateOperation,
  inboundOptOutsOperation,
  // Number lookup
  hlrLookupOperation,
  hlrGetOperation,
  // Numbers and reference data
  numberCorrectionOperation,
  mccmncOperation,
  operatorsOperation,
  prefixesOperation,
  ratesOperation,
];

/** The messaging gateway (spec part B), mounted under /messaging. */
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

  // Every operation (and the webhook reads) requires the token, checked before the input is validated;
  // the chat-app provider's webhook is authenticated by its verify token and signature instead.
  app.use('*', async (c, next) => {
    if (c.req.path.endsWith('/openapi.json') || c.req.path.endsWith('/docs')) return next();
    if (c.req.path.endsWith(CHATAPP_WEBHOOK_PATH)) return next();
    return requireAccessToken(c, next);
  });

  registerChatAppWebhookRoutes(app);

  mountOperations(app, messagingOperations);
  registerWebhookRoutes(app, { service: 'messaging', ownerOf: (c) => c.get('accountId') });
  return app;
}
