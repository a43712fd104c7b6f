import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorBodySchema, errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { psuRequestOf } from './flow-origin.ts';
import { requireUser, USER_SECURITY } from './identity.ts';
import { paymentCodeSchema, paymentSchema, userAgentHeaders } from './payment-schemas.ts';

/**
 * `DELETE /api/8/payment/{code}`: the user cancels their payment (a design extension, decision 0070: the
 * spec names no cancellation). Not yet at the bank, or cancelled by the bank at once: 200 CANCELLED
 * (status FAILED). The bank wants the user to authorise the cancellation (its own SCA): 202 with
 * `scaRedirectUrl`; the bank sends the browser back to the payment's callback, and the payment ends
 * CANCELLED once the bank says so (refused: it goes on as it was). Ended, or past cancelling at the bank:
 * 409 `payment_not_cancellable`. Another user's or unknown payment: 404. The use case:
 * application/openbanking/payments.ts.
 */

const cancellationSchema = paymentSchema
  .extend({
    cancellation: z.enum(['CANCELLED', 'AWAITING_SCA']).openapi({
      description: 'CANCELLED, or AWAITING_SCA: the user authorises the cancellation at `scaRedirectUrl`',
    }),
    scaRedirectUrl: z.string().nullable().openapi({
      description: 'AWAITING_SCA: send the user’s browser to this page of the bank',
    }),
  })
  .openapi('PaymentCancellation');

const errorBody = (description: string) => ({
  description,
  content: { 'application/json': { schema: errorBodySchema } },
});

export const paymentCancelOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'delete',
      path: '/payment/{code}',
      operationId: 'cancelPayment',
      tags: ['Payment initiation'],
      summary: 'Cancel a payment (design extension)',
      description:
        'Cancels the user’s payment. 200: CANCELLED (`state`; `status` FAILED). 202: the bank wants the user to ' +
        'authorise the cancellation: send them to `scaRedirectUrl`; the payment becomes CANCELLED (hook ' +
        '`payment.finished`) once they approved, and stays as it was if they refuse. 409 ' +
        '`payment_not_cancellable` (ended, or the bank says it is past cancelling); another user’s payment 404.',
      security: USER_SECURITY,
      request: {
        headers: userAgentHeaders,
        params: z.object({
          code: paymentCodeSchema.openapi({ param: { name: 'code', in: 'path' } }),
        }),
      },
      responses: {
        200: {
          description: 'The payment, cancelled',
          content: { 'application/json': { schema: cancellationSchema } },
        },
        202: {
          description: 'The cancellation waits for the user’s authorisation at the bank',
          content: { 'application/json': { schema: cancellationSchema } },
        },
        ...errorResponses,
        409: errorBody(
          '`payment_not_cancellable`: the payment ended, or the bank says it is past cancelling',
        ),
        502: errorBody('`bank_refused`: the bank refused the cancellation'),
        503: errorBody('`bank_unavailable`: the bank could not be reached; try again later'),
      },
    }),
  handler: () => async (c) => {
    const user = await requireUser(c);
    const psu = psuRequestOf(c, c.req.valid('header')['user-agent']);
    const cancellation = await openbanking.cancelPayment(c.get('deps'), {
      user,
      code: c.req.valid('param').code,
      psu,
    });
    return c.json(cancellation, cancellation.cancellation === 'CANCELLED' ? 200 : 202);
  },
});
