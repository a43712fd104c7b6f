import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { lending } from '../../application/lending/index.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import { creditProductFieldsSchema, creditProductSchema } from '../../domain/lending/credit-products.ts';
import { creditProductRecordSchema, forManagement } from '../lending/credit-product-schemas.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorResponses, fieldErrorsOf } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';

/**
 * Operator endpoints of lending credit products (HTTP twin of `npm run admin -- lending:credit-product`,
 * decision 0038): a tenant's products, and PUT one by Name (created, or replaced with its promo codes).
 */

const tenantParam = z
  .string()
  .min(1)
  .max(100)
  .openapi({ param: { name: 'tenantId', in: 'path' } });

const listRoute = createRoute({
  method: 'get',
  path: '/lending/tenants/{tenantId}/credit-products',
  tags: ['Admin'],
  summary: 'Credit products of a lending tenant',
  request: { params: z.object({ tenantId: tenantParam }) },
  responses: {
    200: {
      description: 'The products by Name',
      content: {
        'application/json': { schema: z.object({ creditProducts: z.array(creditProductRecordSchema) }) },
      },
    },
    ...errorResponses,
  },
});

const putRoute = createRoute({
  method: 'put',
  path: '/lending/tenants/{tenantId}/credit-products/{name}',
  tags: ['Admin'],
  summary: 'Create or replace a credit product',
  description:
    'The product named `name` (the spec’s Name) of the tenant, with its promo codes. 400 names each ' +
    'offending field; 409 `credit_product_conflict` when a promo code belongs to another product or ' +
    'collides with another product’s Name. Loans already issued keep the schedule they were issued with.',
  request: {
    params: z.object({
      tenantId: tenantParam,
      name: z
        .string()
        .min(1)
        .max(100)
        .openapi({ param: { name: 'name', in: 'path' }, example: 'Personal 12' }),
    }),
    body: jsonBody(creditProductFieldsSchema.omit({ name: true })),
  },
  responses: {
    200: { description: 'Replaced', content: { 'application/json': { schema: creditProductRecordSchema } } },
    201: { description: 'Created', content: { 'application/json': { schema: creditProductRecordSchema } } },
    ...errorResponses,
    409: { description: 'A promo code or Name taken', content: errorResponses[400].content },
  },
});

export function registerLendingCreditProductAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(listRoute, async (c) => {
    const products = await lending.listCreditProducts(c.get('deps'), {
      tenantId: c.req.valid('param').tenantId,
    });
    return c.json({ creditProducts: products.map(forManagement) }, 200);
  });

  app.openapi(putRoute, async (c) => {
    const { tenantId, name } = c.req.valid('param');
    // The rules between fields (bounds in order, decimals of the currency) need the whole product.
    const parsed = creditProductSchema.safeParse({ ...c.req.valid('json'), name });
    if (!parsed.success) throw Refusal.validation(fieldErrorsOf(parsed.error));
    const saved = await lending.putCreditProduct(c.get('deps'), { tenantId, product: parsed.data });
    return saved.created
      ? c.json(forManagement(saved.product), 201)
      : c.json(forManagement(saved.product), 200);
  });
}
