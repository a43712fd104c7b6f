import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { lendingPath } from '../paths.ts';

/**
 * `GET /Customer/PromoCode/Check`: whether the promo code exists (for `state`, among the products
 * offered there). An unknown code is an answer, not an error: `{ "exists": false }`.
 */
export const customerPromoCodeCheckOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Customer/PromoCode/Check'),
      tags: ['Customer'],
      summary: 'Check a promo code',
      description:
        'Whether `promoCode` stands in for a credit product of the tenant (case does not matter), and ' +
        'which product and rate discount it gives; with `state`, only a product offered in that state.',
      security: lendingSecurity.apiKey,
      request: {
        query: z.object({
          promoCode: z.string().trim().min(1).max(50).openapi({ example: 'SPRING-26' }),
          state: z.string().trim().max(50).optional().openapi({ example: 'CA' }),
        }),
      },
      responses: {
        200: {
          description: 'Whether it exists',
          content: {
            'application/json': {
              schema: z
                .object({
                  exists: z.boolean(),
                  promoCode: z.string().optional().openapi({ description: 'As stored (upper case)' }),
                  productName: z.string().optional().openapi({ example: 'Personal 12' }),
                  promoRateDiscount: z
                    .string()
                    .optional()
                    .openapi({ description: 'Percentage points off the product’s rate', example: '2.5' }),
                })
                .openapi('LendingPromoCodeCheck'),
            },
          },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const answer = await lending.checkPromoCode(c.get('deps'), {
      tenantId: c.get('lendingTenant').id,
      ...c.req.valid('query'),
    });
    return c.json(answer, 200);
  },
});
