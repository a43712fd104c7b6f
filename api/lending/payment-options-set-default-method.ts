import { createRoute } from '@hono/zod-openapi';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity, requireCustomer } from './auth.ts';
import { bankAccountSchema } from './bank-account-records.ts';
import { lendingPath } from './paths.ts';
import { paymentMethodIdQuery, setDefaultPaymentMethod } from './payment-method-records.ts';

/** `POST /PaymentOptions/SetDefaultMethod?paymentMethodId=`: the customer's one default method. */
export const paymentOptionsSetDefaultMethodOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/PaymentOptions/SetDefaultMethod'),
      tags: ['Payment options'],
      summary: 'Set the default payment method',
      description: 'The method becomes the only default of the customer. Another customer’s method: 404.',
      security: lendingSecurity.user,
      request: { query: paymentMethodIdQuery },
      responses: {
        200: {
          description: 'The default method',
          content: { 'application/json': { schema: bankAccountSchema } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    return c.json(
      await setDefaultPaymentMethod(
        c.get('deps').db,
        c.get('lendingTenant').id,
        customerId,
        c.req.valid('query').paymentMethodId,
      ),
      200,
    );
  },
});
