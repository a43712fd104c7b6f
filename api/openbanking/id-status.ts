import { createRoute } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { requireUser, USER_SECURITY } from './identity.ts';
import { kycStatusSchema } from './kyc-status.ts';

/**
 * `GET /api/{6,7,8}/id/status`: the customer's KYC status (states and moves: domain/openbanking/kyc.ts).
 */

export const idStatusOperation = defineOperation({
  versions: [6, 7, 8],
  route: () =>
    createRoute({
      method: 'get',
      path: '/id/status',
      operationId: 'kycStatus',
      tags: ['Users'],
      summary: 'KYC status of the user',
      security: USER_SECURITY,
      responses: {
        200: { description: 'The KYC status', content: { 'application/json': { schema: kycStatusSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const user = await requireUser(c);
    return c.json(await openbanking.readKycStatus(c.get('deps'), { user }), 200);
  },
});
