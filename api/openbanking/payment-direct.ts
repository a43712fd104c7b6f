import { openbanking } from '../../application/openbanking/index.ts';
import { defineOperation } from '../shared/operation.ts';
import { flowOriginOf } from './flow-origin.ts';
import { requireUser } from './identity.ts';
import { paymentCreationRoute } from './payment-creation.ts';
import { directFields, paymentOrderBody } from './payment-schemas.ts';

/**
 * `POST /api/{7,8}/payment/direct`: a payment transfer from an IBAN the user names at a bank, without a
 * consent or an added account. Answers the code; nothing reaches the bank until it is confirmed.
 */
export const directBody = paymentOrderBody.extend(directFields).openapi('PaymentDirect');

export const paymentDirectOperation = defineOperation({
  versions: [7, 8],
  route: () =>
    paymentCreationRoute({
      path: '/payment/direct',
      operationId: 'createPaymentDirect',
      summary: 'Create a payment without a consent',
      description:
        'Creates a payment from `debtorIban` at `bankHash` and answers its code; confirm it with POST/PUT payment (the ' +
        'user authenticates at the bank). An optional `hookHash` is called back with `payment.finished`.',
      body: directBody,
    }),
  handler: () => async (c) => {
    const user = await requireUser(c);
    const origin = flowOriginOf(c, c.req.valid('header')['user-agent']);
    const order = c.req.valid('json');
    return c.json(
      await openbanking.createDirectPayment(c.get('deps'), { user, kind: 'direct', order, origin }),
      201,
    );
  },
});
