import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { customerCreditProductSchema } from '../credit-product-schemas.ts';
import { lendingPath } from '../paths.ts';

/** Query of the product listings: the spec's `state`. */
export const stateQuerySchema = z.object({
  state: z.string().trim().max(50).optional().openapi({
    description: 'Only products offered in this state (products for every state included)',
    example: 'CA',
  }),
});

/** `GET /Customer/CreditProducts`: the products a customer may choose, without their promo codes. */
export const customerCreditProductsOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Customer/CreditProducts'),
      tags: ['Customer'],
      summary: 'Credit products',
      description:
        'The tenant’s credit products by Name; with `state`, those offered in that state (a product with ' +
        'no states is offered in every state). Promo codes are not listed: Customer/PromoCode/Check.',
      security: lendingSecurity.apiKey,
      request: { query: stateQuerySchema },
      responses: {
        200: {
          description: 'The products',
          content: {
            'application/json': {
              schema: z.object({ creditProducts: z.array(customerCreditProductSchema) }),
            },
          },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const creditProducts = await lending.listCustomerCreditProducts(c.get('deps'), {
      tenantId: c.get('lendingTenant').id,
      state: c.req.valid('query').state,
    });
    return c.json({ creditProducts }, 200);
  },
});
