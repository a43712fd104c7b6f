import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity, requireCustomer } from '../auth.ts';
import { customerDetailsBody, customerRecordSchema } from '../customer-schemas.ts';
import { lendingPath } from '../paths.ts';

/**
 * `PUT /Customer/Details`: replaces the authenticated customer's personal details (a field left out is
 * cleared). When they become complete, the customer's Pre-Origination loans move on.
 */
export const customerDetailsPutOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'put',
      path: lendingPath('/Customer/Details'),
      tags: ['Customer'],
      summary: 'Update the authenticated customer’s details',
      description:
        'Replaces the personal details (PUT: a field left out is cleared). Complete details (see `missingDetails`) ' +
        'move the customer’s loan applications out of Pre-Origination.',
      security: lendingSecurity.user,
      request: { body: jsonBody(customerDetailsBody) },
      responses: {
        200: { description: 'Updated', content: { 'application/json': { schema: customerRecordSchema } } },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
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
