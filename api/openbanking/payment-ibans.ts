import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { ibanIdParam } from './account-schemas.ts';
import { requireAccountUser, USER_SECURITY } from './identity.ts';
import { authorizationSchema } from './payment-schemas.ts';

/**
 * `GET /api/{6,7,8}/payment/ibans/{ibanId}`: the account's authorization flag for payments (the spec's
 * first payment flow rule). True while the consent that added the account is ACTIVE; false: call POST
 * payment/sca/{ibanId} and follow it. Decision 0033.
 */
export const paymentIbansOperation = defineOperation({
  versions: [6, 7, 8],
  route: () =>
    createRoute({
      method: 'get',
      path: '/payment/ibans/{ibanId}',
      operationId: 'getPaymentAuthorization',
      tags: ['Payment initiation'],
      summary: 'Whether payments from the account may be confirmed',
      description:
        '`authorized: true`: payments from the account may be confirmed (POST/PUT payment); `false`: the account needs ' +
        'SCA at its bank first, through POST payment/sca/{ibanId} (`reason` says why). Another user’s account is 404.',
      security: USER_SECURITY,
      request: { params: z.object({ ibanId: ibanIdParam }) },
      responses: {
        200: { description: 'The flag', content: { 'application/json': { schema: authorizationSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const user = await requireAccountUser(c);
    return c.json(
      await openbanking.readPaymentAuthorization(c.get('deps'), {
        user,
        ibanId: c.req.valid('param').ibanId,
      }),
      200,
    );
  },
});
