import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { customerRecordSchema } from '../customer-schemas.ts';
import { lendingPath } from '../paths.ts';

export const customerIdParams = z.object({
  customerId: z.string().min(1).max(100).openapi({ example: 'cus_5f1c0e2a9b7d4c3e8a6b1f20' }),
});

/** `GET /Management/Customers/{customerId}`: a customer of the tenant (another tenant's: 404). */
export const managementCustomerGetOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Management/Customers/{customerId}'),
      tags: ['Management'],
      summary: 'Read a customer',
      security: lendingSecurity.apiKey,
      request: { params: customerIdParams },
      responses: {
        200: {
          description: 'The customer',
          content: { 'application/json': { schema: customerRecordSchema } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { customerId } = c.req.valid('param');
    return c.json(
      await lending.customerRecord(c.get('deps'), { tenantId: c.get('lendingTenant').id, customerId }),
      200,
    );
  },
});
