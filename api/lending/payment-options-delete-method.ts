import { createRoute } from '@hono/zod-openapi';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity, requireCustomer } from './auth.ts';
import { lendingPath } from './paths.ts';
import { deletePaymentMethod, paymentMethodIdQuery } from './payment-method-records.ts';

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
        'remaining one becomes the default.',
      security: lendingSecurity.user,
      request: { query: paymentMethodIdQuery },
      responses: { 204: { description: 'Deleted' }, ...lendingErrorResponses },
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    await deletePaymentMethod(
      c.get('deps').db,
      c.get('lendingTenant').id,
      customerId,
      c.req.valid('query').paymentMethodId,
    );
    return c.body(null, 204);
  },
});
