import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { requireUser, USER_SECURITY } from './identity.ts';
import { paymentCodeSchema, paymentSchema } from './payment-schemas.ts';

/** `GET /api/{6,7,8}/payment/status?code=`: the payment by its code, from the read model. */
export const paymentStatusOperation = defineOperation({
  versions: [6, 7, 8],
  route: () =>
    createRoute({
      method: 'get',
      path: '/payment/status',
      operationId: 'getPaymentStatus',
      tags: ['Payment initiation'],
      summary: 'Payment status by code',
      description:
        '`status` WAITING, CONFIRMED or FAILED (with the finer `state` and the bank’s `bankTransactionStatus`). ' +
        'Another user’s code is 404.',
      security: USER_SECURITY,
      request: { query: z.object({ code: paymentCodeSchema }) },
      responses: {
        200: { description: 'The payment', content: { 'application/json': { schema: paymentSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const user = await requireUser(c);
    return c.json(
      await openbanking.readPayment(c.get('deps'), { user, code: c.req.valid('query').code }),
      200,
    );
  },
});
