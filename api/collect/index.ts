import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ZodError } from 'zod';
import { Refusal } from '../../application/shared/refusal.ts';
import { badField } from '../../domain/collect/errors.ts';
import { OneTouchError } from '../../domain/collect/one-touch-errors.ts';
import type { AppEnv } from '../shared/context.ts';
import { referencePage } from '../shared/docs.ts';
import { validationHook as jsonValidationHook } from '../shared/errors.ts';
import type { MalformedAnswer } from '../shared/input-guard.ts';
import { mountOperations } from '../shared/operation.ts';
import { cardChargeOperation } from './card-charge.ts';
import { cardForgetOperation } from './card-forget.ts';
import { cardPayOperation } from './card-page/card-pay.ts';
import { cardReturnOperation } from './card-page/card-return.ts';
import { cardPageOpenOperation, openCardPage } from './card-page/open.ts';
import { errorAnswer } from './card-page/responses.ts';
import { deskOperations, isDeskPath } from './desk/index.ts';
import { merchantBalanceOperation } from './merchant-balance.ts';
import { notificationsOperation } from './merchant-notifications.ts';
import { officePayBillOperation } from './office-pay-bill.ts';
import { officePayMoneySendOperation } from './office-pay-money-send.ts';
import { officeRegBillOperation } from './office-reg-bill.ts';
import { officeRegVnbelOperation } from './office-reg-vnbel.ts';
import { officeSendOperation } from './office-send.ts';
import { oneTouchOperations } from './one-touch/index.ts';
import { oneTouchValidationHook } from './one-touch/responses.ts';
import { collectValidationHook, protocolError } from './protocol.ts';
import { sendSendOperation } from './send-send.ts';
import { sendSendVnbelOperation } from './send-send-vnbel.ts';
import { v3mainExpiryOperation } from './v3main-expiry.ts';
import { v3mainPreauthOperation } from './v3main-preauth.ts';
import { wellKnownNotificationKeyOperation } from './well-known-notification-key.ts';

/** Every operation of the payment-collection gateway, one file each (decision 0025). */
export const collectOperations = [
  officeRegBillOperation,
  v3mainPreauthOperation,
  v3mainExpiryOperation,
  sendSendVnbelOperation,
  officeRegVnbelOperation,
  officeSendOperation,
  sendSendOperation,
  officePayBillOperation,
  officePayMoneySendOperation,
  ...oneTouchOperations,
  cardPageOpenOperation,
  cardPayOperation,
  cardReturnOperation,
  cardChargeOperation,
  cardForgetOperation,
  wellKnownNotificationKeyOperation,
  notificationsOperation,
  merchantBalanceOperation,
  ...deskOperations,
];

/**
 * A request the route's schemas refuse is answered in its protocol's shape: the one-touch JSON error
 * under /xdev/ (spec A.8), `ERR=` text everywhere else.
 */
function validationHook(result: { success: true } | { success: false; error: ZodError }, c: Context<AppEnv>) {
  // The cash desk speaks the platform's JSON error model (decision 0030).
  if (c.req.path.includes('/desk/')) return jsonValidationHook(result, c);
  return c.req.path.includes('/xdev/') ? oneTouchValidationHook(result, c) : collectValidationHook(result, c);
}

/**
 * Malformed input refused by the platform's input guard (NUL bytes, undecodable percent-encoding,
 * unparseable multipart), answered like this gateway's own refusals: the one-touch JSON error under
 * /xdev/, the HTML error page on the card page (POST / and /card/pay), `ERR=BAD_FIELD` text elsewhere.
 */
export function answerMalformedInput(basePath: string): MalformedAnswer {
  return (c, problem) => {
    const path = c.req.path.slice(basePath.length).replace(/\/+$/, '');
    if (path.startsWith('/xdev/')) {
      return c.json(OneTouchError.invalid(problem.field, problem.message).body(), 400);
    }
    if (isDeskPath(path)) {
      return c.json(new Refusal(400, 'malformed_request', 'The request is malformed', [problem]).body(), 400);
    }
    if (c.req.method === 'POST' && (path === '' || path === '/card/pay')) {
      return errorAnswer(c as Context<AppEnv>, { code: 'BAD_FIELD', status: 400, ...problem });
    }
    return protocolError(c as Context<AppEnv>, badField(problem.field, problem.message));
  };
}

/** The payment-collection gateway (spec part A), mounted under /collect. */
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
  // Merchants post the card page to `{base_url}/`, with the slash: a sub-app route '/' matches only the
  // bare mount path, so the slashed form is caught here (routePath is the mount path + `/*`).
  app.use('*', async (c, next) => {
    if (c.req.method === 'POST' && c.req.path === `${c.req.routePath.replace(/\/\*$/, '')}/`) {
      return openCardPage(c);
    }
    return next();
  });
  mountOperations(app, collectOperations);
  return app;
}
