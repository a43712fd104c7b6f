import { createRoute } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { errorBodySchema } from '../../shared/errors.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity, requireCustomer } from '../auth.ts';
import { lendingPath } from '../paths.ts';
import { paymentMethodIdQuery, paymentMethodSchema } from '../payment-option-schemas.ts';

/** `POST /PaymentOptions/SetDefaultMethod?paymentMethodId=`: the customer's one default method. */
export const paymentOptionsSetDefaultMethodOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/PaymentOptions/SetDefaultMethod'),
      tags: ['Payment options'],
      summary: 'Set the default payment method',
      description:
        'A bank account (`bac_…`) or a saved card (`card_…`) becomes the only default of the customer. Another ' +
        'customer’s method: 404.',
      security: lendingSecurity.user,
      request: { query: paymentMethodIdQuery },
      responses: {
        200: {
          description: 'The default method (a bank account or a card)',
          content: { 'application/json': { schema: paymentMethodSchema } },
        },
        ...lendingErrorResponses,
        409: {
          description: '`card_not_active`: a card not saved (yet) cannot be the default',
          content: { 'application/json': { schema: errorBodySchema } },
        },
      },
    }),
  handler: () => async (c) => {
    const { customerId } = requireCustomer(c);
    return c.json(
      await lending.setDefaultPaymentMethod(c.get('deps'), {
        tenantId: c.get('lendingTenant').id,
        customerId,
        paymentMethodId: c.req.valid('query').paymentMethodId,
      }),
      200,
    );
  },
});
