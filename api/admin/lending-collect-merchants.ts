import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { CollectMerchantView } from '../../application/lending/index.ts';
import { lending } from '../../application/lending/index.ts';
import { COLLECT_MIN_PATTERN } from '../../credentials/lending/collect-merchants.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { publicBaseUrl } from '../shared/public-url.ts';

/**
 * Operator endpoints of a lending tenant's merchant at the payment-collection gateway (decision 0041;
 * HTTP twin of `npm run admin -- lending:collect-merchant`): the MIN and secret the gateway issued to
 * the tenant (the secret stored encrypted, never answered), and the notify URL that merchant must have.
 */

const tenantParams = z.object({
  tenantId: z
    .string()
    .min(1)
    .max(100)
    .openapi({ param: { name: 'tenantId', in: 'path' } }),
});

const merchantSchema = z
  .object({
    tenantId: z.string(),
    min: z.string().openapi({ example: 'D123456789' }),
    notifyUrl: z.string().openapi({
      description: 'The notify URL the merchant must have at the gateway (its notifications of payouts)',
      example: 'https://platform.example/lending/collect/notifications/ten_1f2e3d4c5b6a7988',
    }),
    updatedAt: z.string(),
  })
  .openapi('LendingCollectMerchant');

const putRoute = createRoute({
  method: 'put',
  path: '/lending/tenants/{tenantId}/collect-merchant',
  tags: ['Admin'],
  summary: 'Set the tenant’s merchant credentials at the collection gateway',
  description:
    'The MIN and secret the collection gateway issued (create the merchant there with the `notifyUrl` this answers). ' +
    'The secret is stored encrypted (LENDING_DATA_KEY) and never answered. 409 `collect_merchant_taken` when the ' +
    'MIN is another tenant’s.',
  request: {
    params: tenantParams,
    body: jsonBody(
      z.object({
        min: z
          .string()
          .regex(COLLECT_MIN_PATTERN, 'must be D followed by 9 digits')
          .openapi({ example: 'D123456789' }),
        secret: z.string().min(16).max(200).openapi({ description: 'The merchant secret (CHECKSUM key)' }),
      }),
    ),
  },
  responses: {
    200: { description: 'Set', content: { 'application/json': { schema: merchantSchema } } },
    ...errorResponses,
    409: { description: '`collect_merchant_taken`', content: errorResponses[400].content },
  },
});

const getRoute = createRoute({
  method: 'get',
  path: '/lending/tenants/{tenantId}/collect-merchant',
  tags: ['Admin'],
  summary: 'The tenant’s merchant at the collection gateway (without the secret)',
  request: { params: tenantParams },
  responses: {
    200: { description: 'The merchant', content: { 'application/json': { schema: merchantSchema } } },
    ...errorResponses,
  },
});

export function registerLendingCollectMerchantAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  const answer = (c: Context<AppEnv>, merchant: CollectMerchantView) => ({
    tenantId: merchant.tenantId,
    min: merchant.min,
    notifyUrl: `${publicBaseUrl(c)}/lending/collect/notifications/${merchant.tenantId}`,
    updatedAt: merchant.updatedAt.toISOString(),
  });

  app.openapi(putRoute, async (c) => {
    const { tenantId } = c.req.valid('param');
    return c.json(
      answer(c, await lending.setCollectMerchant(c.get('deps'), { tenantId, merchant: c.req.valid('json') })),
      200,
    );
  });

  app.openapi(getRoute, async (c) => {
    const merchant = await lending.readCollectMerchant(c.get('deps'), {
      tenantId: c.req.valid('param').tenantId,
    });
    return c.json(answer(c, merchant), 200);
  });
}
