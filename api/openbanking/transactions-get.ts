import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { ibanIdParam, transactionIdParam, transactionSchema } from './account-schemas.ts';
import { requireAccountUser, USER_SECURITY } from './identity.ts';

/** `GET /api/{6,7,8}/transactions/{ibanId}/{transactionId}`: one transaction from the read model. */

const transactionDetailsSchema = transactionSchema
  .extend({ ibanId: z.string() })
  .openapi('TransactionDetails');

export const transactionsGetOperation = defineOperation({
  versions: [6, 7, 8],
  route: () =>
    createRoute({
      method: 'get',
      path: '/transactions/{ibanId}/{transactionId}',
      operationId: 'getTransaction',
      tags: ['Account information'],
      summary: 'One transaction',
      description:
        'A transaction of the user’s account. Malformed ids 400; an unknown transaction or another user’s account 404.',
      security: USER_SECURITY,
      request: { params: z.object({ ibanId: ibanIdParam, transactionId: transactionIdParam }) },
      responses: {
        200: {
          description: 'The transaction',
          content: { 'application/json': { schema: transactionDetailsSchema } },
        },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { ibanId, transactionId } = c.req.valid('param');
    const user = await requireAccountUser(c);
    return c.json(await openbanking.readTransaction(c.get('deps'), { user, ibanId, transactionId }), 200);
  },
});
