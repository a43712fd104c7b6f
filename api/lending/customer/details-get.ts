import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity, requireCustomer } from '../auth.ts';
import { customerRecordSchema } from '../customer-schemas.ts';
import { lendingPath } from '../paths.ts';

/** `GET /Customer/Details`: the authenticated customer's own record. */
export const customerDetailsGetOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Customer/Details'),
      tags: ['Customer'],
      summary: 'The authenticated customer’s details',
      description:
        'Personal details, whether they are complete (and what is missing) and the disclaimer confirmation.',
      security: lendingSecurity.user,
      responses: {
        200: {
          description: 'The customer',
          content: { 'application/json': { schema: customerRecordSchema } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    return c.json(
      await lending.customerRecord(c.get('deps'), { tenantId: c.get('lendingTenant').id, customerId }),
      200,
    );
  },
});
