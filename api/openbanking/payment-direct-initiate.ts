import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { PAYMENT_SCA_METHODS } from '../../domain/openbanking/payments.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { flowOriginOf } from './flow-origin.ts';
import { requireUser, USER_SECURITY } from './identity.ts';
import { directBody } from './payment-direct.ts';
import { createdSchema, paymentErrorResponses, userAgentHeaders } from './payment-schemas.ts';

/**
 * `POST /api/8/payment/direct-initiate`: POST payment/direct and its confirmation in one call: creates
 * the payment, initiates it at the bank and answers once the bank said how the user authenticates
 * (`sca.method`, and `sca.redirectUrl` for REDIRECT). A later POST/PUT payment with the code answers
 * the same, moving no money.
 */
const body = directBody
  .extend({
    scaMethod: z.enum(PAYMENT_SCA_METHODS).optional().openapi({
      description: 'REDIRECT, EMBEDDED_SMS_OTP or DECOUPLED; default: the bank’s own flow',
    }),
  })
  .openapi('PaymentDirectInitiate');

export const paymentDirectInitiateOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'post',
      path: '/payment/direct-initiate',
      operationId: 'initiatePaymentDirect',
      tags: ['Payment initiation'],
      summary: 'Create and initiate a payment without a consent; answers the SCA URL and method',
      description:
        'Creates the payment, calls the bank, and answers the payment with `sca.method` and (REDIRECT) `sca.redirectUrl`. ' +
        'EMBEDDED_SMS_OTP: the bank has texted the user a code; relay it with PUT /api/8/payment/verify-sms.',
      security: USER_SECURITY,
      request: { headers: userAgentHeaders, body: jsonBody(body) },
      responses: {
        201: { description: 'Initiated', content: { 'application/json': { schema: createdSchema } } },
        ...errorResponses,
        ...paymentErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const user = await requireUser(c);
    const { scaMethod, ...order } = c.req.valid('json');
    const origin = flowOriginOf(c, c.req.valid('header')['user-agent']);
    return c.json(
      await openbanking.initiateDirectPayment(c.get('deps'), { user, order, scaMethod, origin }),
      201,
    );
  },
});
