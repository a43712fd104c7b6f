import { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../shared/context.ts';
import { referencePage } from '../shared/docs.ts';
import { validationHook } from '../shared/errors.ts';
import { registerBankTransferRoutes } from './bank-transfers.ts';
import { registerCardPageRoutes } from './card-page/index.ts';
import { registerDemoRoutes } from './demo.ts';
import { registerDepositSlipRoutes } from './deposit-slips.ts';
import { registerExpiryRoutes } from './expiry.ts';
import { registerMoneySendRoutes } from './money-send.ts';
import { registerNotificationRoutes } from './notifications.ts';
import { registerOfficeBillRoutes } from './office-bills.ts';
import { registerOneTouchRoutes } from './one-touch/index.ts';
import { registerPreauthRoutes } from './preauth.ts';

/**
 * The payment-collection gateway (spec part A), mounted under /collect.
 * Each register* function adds the operations of one resource.
 */
export function createCollectApi(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Payment-collection gateway',
      version: '1.0.0',
      description:
        'ePay.bg-compatible merchant interface. Web API calls carry `ENCODED` (base64 of `KEY=VALUE` lines) and ' +
        '`CHECKSUM` (lowercase hex HMAC-SHA1 of ENCODED keyed with the merchant secret); answers are `KEY=VALUE` ' +
        'text lines, errors `ERR=<CODE>`, `ERRMSG=<text>` and, where a field is at fault, `FIELD=<name>`. ' +
        'Times are Europe/Sofia. See docs/collect.md.',
    },
    servers: [{ url: '/collect' }],
  });
  app.get('/docs', (c) => c.html(referencePage('Payment-collection gateway API', '/collect/openapi.json')));
  registerOfficeBillRoutes(app);
  registerPreauthRoutes(app);
  registerExpiryRoutes(app);
  registerBankTransferRoutes(app);
  registerDepositSlipRoutes(app);
  registerMoneySendRoutes(app);
  registerDemoRoutes(app);
  registerOneTouchRoutes(app);
  registerCardPageRoutes(app);
  registerNotificationRoutes(app);
  return app;
}
