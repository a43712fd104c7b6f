import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { creditProductRecordSchema, forManagement } from '../credit-product-schemas.ts';
import { stateQuerySchema } from '../customer/credit-products.ts';
import { LENDING_API_PREFIX, lendingPath } from '../paths.ts';

/**
 * `GET /Management/CreditProducts` (also at its old URL `/Migration/CreditProducts`, the spec's
 * Versioning section): the tenant's products with their promo codes.
 */
export const managementCreditProductsOperation = defineLendingOperation({
  aliases: [`${LENDING_API_PREFIX}/Migration/CreditProducts`],
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Management/CreditProducts'),
      tags: ['Management'],
      summary: 'Credit products',
      description:
        'The tenant’s credit products by Name, with their promo codes; with `state`, those offered in ' +
        'that state. Also served at `/Migration/CreditProducts`.',
      security: lendingSecurity.apiKey,
      request: { query: stateQuerySchema },
      responses: {
        200: {
          description: 'The products',
          content: {
            'application/json': { schema: z.object({ creditProducts: z.array(creditProductRecordSchema) }) },
          },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const products = await lending.listCreditProducts(c.get('deps'), {
      tenantId: c.get('lendingTenant').id,
      state: c.req.valid('query').state,
    });
    return c.json({ creditProducts: products.map(forManagement) }, 200);
  },
});
