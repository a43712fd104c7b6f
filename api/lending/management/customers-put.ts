import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { customerDetailsBody, customerRecordSchema } from '../customer-schemas.ts';
import { LENDING_API_PREFIX, lendingPath } from '../paths.ts';
import { customerIdParams } from './customers-get.ts';

/**
 * `PUT /Management/Customers/{customerId}` (also at the old `/Migration/Customers/{customerId}`):
 * replaces a customer's details, as Customer/Details PUT does for the customer.
 */
export const managementCustomerPutOperation = defineLendingOperation({
  aliases: [`${LENDING_API_PREFIX}/Migration/Customers/{customerId}`],
  route: () =>
    createRoute({
      method: 'put',
      path: lendingPath('/Management/Customers/{customerId}'),
      tags: ['Management'],
      summary: 'Update a customer',
      description:
        'Replaces the customer’s personal details (a field left out is cleared); complete details move the ' +
        'customer’s loan applications out of Pre-Origination. Also served at `/Migration/Customers/{customerId}`.',
      security: lendingSecurity.apiKey,
      request: { params: customerIdParams, body: jsonBody(customerDetailsBody) },
      responses: {
        200: { description: 'Updated', content: { 'application/json': { schema: customerRecordSchema } } },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { customerId } = c.req.valid('param');
    const tenantId = c.get('lendingTenant').id;
    return c.json(
      await lending.replaceCustomerDetails(c.get('deps'), {
        tenantId,
        customerId,
        details: c.req.valid('json'),
      }),
      200,
    );
  },
});
