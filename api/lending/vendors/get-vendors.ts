import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { lendingPath } from '../paths.ts';

const vendorAnswerSchema = z
  .object({
    vendorId: z.string().openapi({ example: 'lone-star-motors' }),
    name: z.string().openapi({ example: 'Lone Star Motors' }),
    storeCount: z.number().int().openapi({ description: 'Its active stores', example: 3 }),
  })
  .openapi('Vendor');

/** `GET /Vendors/GetVendors`: the tenant's active vendors. */
export const vendorsGetVendorsOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Vendors/GetVendors'),
      tags: ['Vendors'],
      summary: 'Vendors',
      description:
        'The tenant’s active vendors (where its loans are sold) by name; `vendorId` is Loans/Create’s.',
      security: lendingSecurity.apiKey,
      responses: {
        200: {
          description: 'The vendors',
          content: { 'application/json': { schema: z.object({ vendors: z.array(vendorAnswerSchema) }) } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      { vendors: await lending.activeVendors(c.get('deps'), { tenantId: c.get('lendingTenant').id }) },
      200,
    ),
});
