import { openbanking } from '../../application/openbanking/index.ts';
import { defineOperation } from '../shared/operation.ts';
import { flowOriginOf } from './flow-origin.ts';
import { requireUser } from './identity.ts';
import { paymentCreationRoute } from './payment-creation.ts';
import { fromAccountFields, paymentOrderBody } from './payment-schemas.ts';

/**
 * `POST /api/{6,7,8}/payment/iban`: a payment transfer from an added account to an IBAN. Answers the
 * payment's `code` (WAITING, state CREATED) and the account's authorization flag; nothing reaches the
 * bank until the payment is confirmed with the code (POST/PUT payment). An optional `hookHash` is
 * called back with `payment.finished` (else the user's signup webhookUrl).
 */
const body = paymentOrderBody.extend(fromAccountFields).openapi('PaymentFromAccount');

export const paymentIbanOperation = defineOperation({
  versions: [6, 7, 8],
  route: () =>
    paymentCreationRoute({
      path: '/payment/iban',
      operationId: 'createPaymentFromAccount',
      summary: 'Create a payment from an added account',
      description:
        'Creates the payment and answers its `code`. Confirm it with POST/PUT payment (the user then authenticates at ' +
        'the bank); read it with GET payment/status?code=. `authorized: false`: POST payment/sca/{ibanId} first. ' +
        'Another user’s account is 404; an unknown hook 400.',
      body,
    }),
  handler: () => async (c) => {
    const user = await requireUser(c);
    const origin = flowOriginOf(c, c.req.valid('header')['user-agent']);
    const order = c.req.valid('json');
    return c.json(
      await openbanking.createPaymentFromAccount(c.get('deps'), { user, kind: 'iban', order, origin }),
      201,
    );
  },
});
