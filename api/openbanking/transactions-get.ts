import { createRoute, z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import { Refusal } from '../../application/shared/refusal.ts';
import { obTransactions } from '../../db/schema/openbanking.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import {
  ibanIdParam,
  requireUserAccount,
  toTransactionRecord,
  transactionIdParam,
  transactionSchema,
} from './account-records.ts';
import { USER_SECURITY } from './identity.ts';

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
    const { account } = await requireUserAccount(c, ibanId);
    const [row] = await c
      .get('deps')
      .db.select()
      .from(obTransactions)
      .where(and(eq(obTransactions.accountId, account.id), eq(obTransactions.transactionId, transactionId)))
      .limit(1);
    if (!row) throw Refusal.notFound('Transaction');
    return c.json({ ibanId: account.id, ...toTransactionRecord(row) }, 200);
  },
});
