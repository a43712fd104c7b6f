import { createHash, timingSafeEqual } from 'node:crypto';
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { Refusal } from '../../application/shared/refusal.ts';
import {
  BILLING_PREFIX_PATTERN,
  createMerchant,
  MerchantConflict,
  MIN_PATTERN,
  ReturnOriginRefused,
  setNotifyUrl,
  setReturnOrigins,
} from '../../credentials/collect/merchants.ts';
import { issueAccessToken, revokeAccessToken } from '../../credentials/messaging/access-tokens.ts';
import { OutboundUrlRefused } from '../../domain/outbound-url.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorResponses, validationHook } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { registerCodecAdminRoutes } from './codec.ts';
import { registerDeskOperatorAdminRoutes } from './collect-desk-operators.ts';
import { registerLedgerAdminRoutes } from './collect-ledger.ts';
import { registerOneTouchAdminRoutes } from './collect-one-touch.ts';
import { registerStatementAdminRoutes } from './collect-statements.ts';
import { registerLendingCollectMerchantAdminRoutes } from './lending-collect-merchants.ts';
import { registerLendingCreditProductAdminRoutes } from './lending-credit-products.ts';
import { registerLendingFileAdminRoutes } from './lending-files.ts';
import { registerLendingReferenceDataAdminRoutes } from './lending-reference-data.ts';
import { registerLendingTenantAdminRoutes } from './lending-tenants.ts';
import { registerMessagingCarrierAdminRoutes } from './messaging-carriers.ts';
import { registerMessagingInboundNumberAdminRoutes } from './messaging-inbound-numbers.ts';
import { registerMessagingPriceListAdminRoutes } from './messaging-price-lists.ts';
import { registerMessagingSenderIdAdminRoutes } from './messaging-sender-id.ts';
import { registerMessagingTokenAdminRoutes } from './messaging-tokens.ts';
import { registerOpenBankingAdminRoutes } from './openbanking.ts';

/**
 * Operator endpoints (the HTTP twin of `npm run admin`), for when the embedded PGlite database is
 * held by the running platform. Enabled only when ADMIN_TOKEN is set; otherwise every path is 404.
 */
const digest = (text: string) => createHash('sha256').update(text).digest();

/** The request carries the configured ADMIN_TOKEN (false when none is configured). */
export function presentsAdminToken(c: Context<AppEnv>): boolean {
  const expected = c.get('deps').config.ADMIN_TOKEN;
  const presented = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
  // Digests have equal length, so the comparison takes the same time whatever was presented.
  return !!expected && !!presented && timingSafeEqual(digest(presented), digest(expected));
}

const requireAdminToken = createMiddleware<AppEnv>(async (c, next) => {
  if (!c.get('deps').config.ADMIN_TOKEN) throw Refusal.notFound(`${c.req.method} ${c.req.path}`);
  if (!presentsAdminToken(c)) {
    throw Refusal.unauthorized('Missing or invalid admin token (Authorization: Bearer ...)');
  }
  await next();
});

const issuedTokenSchema = z
  .object({
    accountId: z.string().openapi({ example: 'acc_3f2a...' }),
    tokenId: z.string().openapi({ example: 'tok_9b1c...' }),
    token: z.string().openapi({ description: 'The access token; shown once, only its hash is kept' }),
  })
  .openapi('IssuedToken');

const createAccountRoute = createRoute({
  method: 'post',
  path: '/messaging/accounts',
  tags: ['Admin'],
  summary: 'Create a messaging account and its first access token',
  request: {
    body: jsonBody(z.object({ name: z.string().min(1).max(200).openapi({ example: 'Acme Ltd' }) })),
  },
  responses: {
    201: { description: 'Created', content: { 'application/json': { schema: issuedTokenSchema } } },
    ...errorResponses,
  },
});

const revokeTokenRoute = createRoute({
  method: 'delete',
  path: '/messaging/tokens/{tokenId}',
  tags: ['Admin'],
  summary: 'Revoke an access token',
  request: { params: z.object({ tokenId: z.string().min(1).max(100) }) },
  responses: { 204: { description: 'Revoked' }, ...errorResponses },
});

const createdMerchantSchema = z
  .object({
    min: z.string().openapi({ description: 'Merchant id (MIN)', example: 'D123456789' }),
    name: z.string().openapi({ example: 'Acme Ltd' }),
    secret: z.string().openapi({
      description: 'The CHECKSUM key; shown once, stored encrypted and never returned again',
    }),
    notifyUrl: z.string().nullable(),
    billingUrl: z.string().nullable(),
    billingIdnPrefix: z.string().nullable(),
    returnOrigins: z.array(z.string()),
  })
  .openapi('CreatedMerchant');

const returnOriginsSchema = z
  .array(z.string().max(300))
  .max(20)
  .openapi({
    description:
      'Origins (scheme, host, port: `https://shop.example`) under which the card page honours URL_OK / ' +
      'URL_CANCEL posted as form fields outside the signed packet (decision 0013)',
    example: ['https://shop.example'],
  });

const setReturnOriginsRoute = createRoute({
  method: 'put',
  path: '/collect/merchants/{min}/return-origins',
  tags: ['Admin'],
  summary: "Set a merchant's return origins",
  description:
    'Replaces the origins under which the card page honours `URL_OK` / `URL_CANCEL` posted as form ' +
    'fields (as ePay shops send them); an empty list leaves only those inside the signed packet. 400 ' +
    'names an origin with a path, query or another scheme; 404 for an unknown MIN.',
  request: {
    params: z.object({ min: z.string().regex(MIN_PATTERN, 'a MIN is D followed by 9 digits') }),
    body: jsonBody(z.object({ returnOrigins: returnOriginsSchema })),
  },
  responses: {
    200: {
      description: 'The stored origins (normalised)',
      content: {
        'application/json': { schema: z.object({ min: z.string(), returnOrigins: z.array(z.string()) }) },
      },
    },
    ...errorResponses,
  },
});

const updateMerchantRoute = createRoute({
  method: 'patch',
  path: '/collect/merchants/{min}',
  tags: ['Admin'],
  summary: "Change a merchant's notification URL",
  description:
    "Points the merchant's status notifications at `notifyUrl` (`null`: kept, not sent) and answers the URL " +
    'it replaced, so a temporary change can be undone (`npm run webhooks -- listen --service collect`). ' +
    '400 names `notifyUrl` when the outbound-URL policy refuses it (decision 0027); 404 for an unknown MIN.',
  request: {
    params: z.object({ min: z.string().regex(MIN_PATTERN, 'a MIN is D followed by 9 digits') }),
    body: jsonBody(
      z.object({
        notifyUrl: z
          .url({ protocol: /^https?$/ })
          .max(2000)
          .nullable()
          .openapi({ description: 'Where status notifications are POSTed' }),
      }),
    ),
  },
  responses: {
    200: {
      description: 'The new and the previous notification URL',
      content: {
        'application/json': {
          schema: z.object({
            min: z.string(),
            notifyUrl: z.string().nullable(),
            previousNotifyUrl: z.string().nullable(),
          }),
        },
      },
    },
    ...errorResponses,
  },
});

const createMerchantRoute = createRoute({
  method: 'post',
  path: '/collect/merchants',
  tags: ['Admin'],
  summary: 'Create a payment-collection merchant',
  description:
    'Creates a merchant and answers its secret once. 409 `merchant_exists` when the MIN is taken, ' +
    '`billing_prefix_taken` when another merchant has the billing prefix.',
  request: {
    body: jsonBody(
      z.object({
        name: z.string().min(1).max(200).openapi({ example: 'Acme Ltd' }),
        min: z
          .string()
          .regex(MIN_PATTERN, 'a MIN is D followed by 9 digits')
          .optional()
          .openapi({ description: 'Chosen MIN; generated when absent', example: 'D123456789' }),
        notifyUrl: z
          .url({ protocol: /^https?$/ })
          .optional()
          .openapi({ description: 'Where status notifications are POSTed' }),
        billingUrl: z
          .url({ protocol: /^https?$/ })
          .optional()
          .openapi({ description: 'Base URL of the billing system (/pay/init, /pay/confirm)' }),
        billingIdnPrefix: z
          .string()
          .regex(BILLING_PREFIX_PATTERN, '2 to 6 digits starting with 9')
          .optional()
          .openapi({ description: 'IDNs with this prefix belong to the billing system', example: '97' }),
        returnOrigins: returnOriginsSchema.optional(),
      }),
    ),
  },
  responses: {
    201: { description: 'Created', content: { 'application/json': { schema: createdMerchantSchema } } },
    ...errorResponses,
    409: { description: 'MIN or billing prefix taken', content: errorResponses[400].content },
  },
});

export function createAdminApi(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use('*', requireAdminToken);

  app.openapi(createAccountRoute, async (c) => {
    const issued = await issueAccessToken(c.get('deps').db, {
      accountName: c.req.valid('json').name,
      label: 'admin',
    });
    return c.json(issued, 201);
  });

  app.openapi(createMerchantRoute, async (c) => {
    const { db, config } = c.get('deps');
    try {
      return c.json(await createMerchant(db, config, c.req.valid('json')), 201);
    } catch (error) {
      if (error instanceof OutboundUrlRefused) throw Refusal.field(error.field, error.reason);
      if (error instanceof ReturnOriginRefused) throw Refusal.field('returnOrigins', error.message);
      if (error instanceof MerchantConflict) {
        throw Refusal.conflict(
          error.field === 'min' ? 'merchant_exists' : 'billing_prefix_taken',
          error.message,
        );
      }
      throw error;
    }
  });

  app.openapi(setReturnOriginsRoute, async (c) => {
    const { min } = c.req.valid('param');
    try {
      const returnOrigins = await setReturnOrigins(c.get('deps').db, min, c.req.valid('json').returnOrigins);
      if (!returnOrigins) throw Refusal.notFound('Merchant');
      return c.json({ min, returnOrigins }, 200);
    } catch (error) {
      if (error instanceof ReturnOriginRefused) throw Refusal.field('returnOrigins', error.message);
      throw error;
    }
  });

  app.openapi(updateMerchantRoute, async (c) => {
    const { min } = c.req.valid('param');
    const { db, config } = c.get('deps');
    try {
      const change = await setNotifyUrl(db, config, min, c.req.valid('json').notifyUrl);
      if (!change) throw Refusal.notFound('Merchant');
      return c.json({ min, ...change }, 200);
    } catch (error) {
      if (error instanceof OutboundUrlRefused) throw Refusal.field(error.field, error.reason);
      throw error;
    }
  });

  app.openapi(revokeTokenRoute, async (c) => {
    const revoked = await revokeAccessToken(c.get('deps').db, c.req.valid('param').tokenId);
    if (!revoked) throw Refusal.notFound('Active token');
    return c.body(null, 204);
  });
  registerMessagingTokenAdminRoutes(app);
  registerMessagingSenderIdAdminRoutes(app);
  registerMessagingPriceListAdminRoutes(app);
  registerMessagingInboundNumberAdminRoutes(app);
  registerMessagingCarrierAdminRoutes(app);
  registerOneTouchAdminRoutes(app);
  registerDeskOperatorAdminRoutes(app);
  registerLedgerAdminRoutes(app);
  registerStatementAdminRoutes(app);
  registerOpenBankingAdminRoutes(app);
  registerLendingTenantAdminRoutes(app);
  registerLendingCreditProductAdminRoutes(app);
  registerLendingReferenceDataAdminRoutes(app);
  registerLendingCollectMerchantAdminRoutes(app);
  registerLendingFileAdminRoutes(app);
  registerCodecAdminRoutes(app);
  return app;
}
