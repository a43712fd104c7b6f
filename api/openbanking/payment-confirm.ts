import { createRoute } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineOperation, type OperationHandler } from '../shared/operation.ts';
import { psuRequestOf } from './flow-origin.ts';
import { requireUser, USER_SECURITY } from './identity.ts';
import { confirmBody, paymentErrorResponses, paymentSchema, userAgentHeaders } from './payment-schemas.ts';

/**
 * `POST` and `PUT /api/{6,7,8}/payment`: confirm a payment with its code (the two are the same
 * operation). The first confirmation initiates the payment at the bank and answers once the bank said
 * how the user authenticates (`sca`); a second answers the payment as it stands and moves no money
 * (the workflow `ob-payment-<code>` takes one confirmation). A payment from an added account whose
 * authorization flag is false is 409 `payment_not_authorized`; another user's code is 404.
 */
const route = (method: 'post' | 'put') =>
  createRoute({
    method,
    path: '/payment',
    operationId: method === 'post' ? 'confirmPayment' : 'confirmPaymentPut',
    tags: ['Payment initiation'],
    summary: 'Confirm a payment with its code',
    description:
      'Initiates the payment at the bank and answers it with `sca` (REDIRECT: send the browser to `sca.redirectUrl`; ' +
      'EMBEDDED_SMS_OTP: the bank texted a code, relay it with PUT /api/8/payment/verify-sms; DECOUPLED: the user ' +
      'approves in the bank’s app). Confirming again answers the same payment without a second debit. POST and PUT ' +
      'are the same operation.',
    security: USER_SECURITY,
    request: { headers: userAgentHeaders, body: jsonBody(confirmBody) },
    responses: {
      200: { description: 'The payment', content: { 'application/json': { schema: paymentSchema } } },
      ...errorResponses,
      ...paymentErrorResponses,
    },
  });

/** The one handler of both methods. */
const confirm: OperationHandler<ReturnType<typeof route>> = async (c) => {
  const user = await requireUser(c);
  const body = c.req.valid('json');
  const psu = psuRequestOf(c, c.req.valid('header')['user-agent']);
  const answer = await openbanking.confirmPayment(c.get('deps'), { user, ...body, checkAccount: true, psu });
  return c.json(answer, 200);
};

export const paymentConfirmOperation = defineOperation({
  versions: [6, 7, 8],
  route: () => route('post'),
  handler: () => confirm,
});

export const paymentConfirmPutOperation = defineOperation({
  versions: [6, 7, 8],
  route: () => route('put'),
  handler: () => confirm,
});
