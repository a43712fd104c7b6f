import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { SMS_CODE_PATTERN } from '../../domain/openbanking/payments.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation } from '../shared/operation.ts';
import { psuRequestOf } from './flow-origin.ts';
import { requireUser, USER_SECURITY } from './identity.ts';
import {
  paymentCodeSchema,
  paymentErrorResponses,
  paymentSchema,
  userAgentHeaders,
} from './payment-schemas.ts';

/**
 * `PUT /api/8/payment/verify-sms`: the one-time code the bank texted the user (embedded SCA), relayed to
 * the bank's authorisation resource. Right: the bank executes the payment and the answer is the
 * payment (CONFIRMED, or FAILED when the bank rejected it). Wrong: 422 `sms_code_invalid` (the bank
 * fails the authorisation after 3 wrong codes: the payment is then FAILED); expired: 422
 * `sms_code_expired`; used already: 409 `sms_code_used`; not waiting for a code: 409
 * `payment_not_awaiting_code`; not relayed (decision 0068): 409 `sca_step_expired`; the bank unreachable:
 * 503 `bank_unavailable`; any other refusal of the bank: 502 `bank_refused`.
 */
const body = z
  .object({
    code: paymentCodeSchema,
    smsCode: z
      .string()
      .regex(SMS_CODE_PATTERN, 'must be the 4 to 8 digits the bank sent')
      .openapi({ example: '482913' }),
  })
  .openapi('VerifySms');

export const paymentVerifySmsOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'put',
      path: '/payment/verify-sms',
      operationId: 'verifyPaymentSms',
      tags: ['Payment initiation'],
      summary: 'Confirm a payment with the SMS code the bank sent',
      description:
        'Relays the code to the bank. Errors: 422 `sms_code_invalid` (wrong), 422 `sms_code_expired`, 409 ' +
        '`sms_code_used`, 409 `payment_not_awaiting_code`, 409 `sca_step_expired` (the code did not reach the ' +
        'bank in time, or an interrupted attempt used it: send it again), 503 `bank_unavailable`, 502 ' +
        '`bank_refused`; another user’s payment 404.',
      security: USER_SECURITY,
      request: { headers: userAgentHeaders, body: jsonBody(body) },
      responses: {
        200: { description: 'The payment', content: { 'application/json': { schema: paymentSchema } } },
        ...errorResponses,
        ...paymentErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const user = await requireUser(c);
    const psu = psuRequestOf(c, c.req.valid('header')['user-agent']);
    return c.json(await openbanking.verifySms(c.get('deps'), { user, ...c.req.valid('json'), psu }), 200);
  },
});
