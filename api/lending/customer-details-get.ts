import { createRoute } from '@hono/zod-openapi';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity, requireCustomer } from './auth.ts';
import { customerRecord, customerRecordSchema } from './customer-records.ts';
import { lendingPath } from './paths.ts';

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
    const { db, config } = c.get('deps');
    const { customerId } = requireCustomer(c);
    return c.json(await customerRecord(db, config, c.get('lendingTenant').id, customerId), 200);
  },
});
