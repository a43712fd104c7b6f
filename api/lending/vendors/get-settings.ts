import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { lendingPath } from '../paths.ts';
import { vendorSettingsAnswerSchema } from '../reference-data-schemas.ts';

/** `GET /Vendors/GetSettings`: the tenant's vendor (point-of-sale) options. */
export const vendorsGetSettingsOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Vendors/GetSettings'),
      tags: ['Vendors'],
      summary: 'Vendor settings',
      description:
        'Whether Loans/Create must name the vendor (`vendorRequired`) and, with a vendor, its store (`storeRequired`): ' +
        'else 400 naming `vendorId` or `storeId`; whether the site shows the stores map. Defaults until set: ' +
        'nothing required, map shown.',
      security: lendingSecurity.apiKey,
      responses: {
        200: {
          description: 'The vendor settings',
          content: { 'application/json': { schema: vendorSettingsAnswerSchema } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(await lending.vendorSettings(c.get('deps'), { tenantId: c.get('lendingTenant').id }), 200),
});
