import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { lendingPath } from '../paths.ts';
import { storeAnswerSchema } from '../reference-data-schemas.ts';

/** `GET /Vendors/GetStores/{vendorId}`: an active vendor's active stores. */
export const vendorsGetStoresOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Vendors/GetStores/{vendorId}'),
      tags: ['Vendors'],
      summary: 'Stores of a vendor',
      description:
        'The vendor’s active stores in display order; `storeId` is Loans/Create’s. 404 for an unknown or inactive ' +
        'vendor, or another tenant’s.',
      security: lendingSecurity.apiKey,
      request: {
        params: z.object({
          vendorId: z
            .string()
            .min(1)
            .max(100)
            .openapi({ param: { name: 'vendorId', in: 'path' }, example: 'lone-star-motors' }),
        }),
      },
      responses: {
        200: {
          description: 'The stores',
          content: {
            'application/json': {
              schema: z.object({
                vendorId: z.string(),
                name: z.string(),
                stores: z.array(storeAnswerSchema),
              }),
            },
          },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      await lending.storesOfVendor(c.get('deps'), {
        tenantId: c.get('lendingTenant').id,
        vendorId: c.req.valid('param').vendorId,
      }),
      200,
    ),
});
