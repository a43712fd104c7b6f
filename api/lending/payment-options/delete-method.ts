import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { errorBodySchema } from '../../shared/errors.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity, requireCustomer } from '../auth.ts';
import { lendingPath } from '../paths.ts';
import { paymentMethodIdQuery } from '../payment-option-schemas.ts';

/** `DELETE /PaymentOptions/DeleteMethod?paymentMethodId=`: deletes one of the customer's methods. */
export const paymentOptionsDeleteMethodOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'delete',
      path: lendingPath('/PaymentOptions/DeleteMethod'),
      tags: ['Payment options'],
      summary: 'Delete a payment method',
      description:
        'Another customer’s method, or one already deleted: 404. When the default method is deleted, the oldest ' +
        'remaining one becomes the default. A card is also forgotten at the collection gateway (it can no longer be ' +
        'charged); when the gateway cannot be reached: 503 `collect_gateway_unavailable` and nothing changes.',
      security: lendingSecurity.user,
      request: { query: paymentMethodIdQuery },
      responses: {
        204: { description: 'Deleted' },
        ...lendingErrorResponses,
        503: {
          description: '`collect_gateway_unavailable`: the card could not be forgotten at the gateway now',
          content: { 'application/json': { schema: errorBodySchema } },
        },
      },
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    await lending.deletePaymentMethod(c.get('deps'), {
      tenantId: c.get('lendingTenant').id,
      customerId,
      paymentMethodId: c.req.valid('query').paymentMethodId,
    });
    return c.body(null, 204);
  },
});
