import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { dateRangeQuery, freshnessSchema, ibanIdParam, transactionSchema } from './account-schemas.ts';
import { requireAccountUser, security, USER_SECURITY } from './identity.ts';

/**
 * `GET /api/{6,7,8}/transactions/{ibanId}`: the account's transactions from the read model, newest first,
 * optionally between `dateFrom` and `dateTo` (inclusive; booking date, or value date while pending).
 * Version 8 also takes `x-agent-hash`: when sent it must be the user's agent, else 404.
 */

const transactionListSchema = z
  .object({
    ibanId: z.string(),
    iban: z.string(),
    currency: z.string(),
    dateFrom: z.string().nullable(),
    dateTo: z.string().nullable(),
    booked: z.array(transactionSchema),
    pending: z.array(transactionSchema),
    freshness: freshnessSchema,
  })
  .openapi('TransactionList');

export const transactionsListOperation = defineOperation({
  versions: [6, 7, 8],
  route: (v) =>
    createRoute({
      method: 'get',
      path: '/transactions/{ibanId}',
      operationId: 'listTransactions',
      tags: ['Account information'],
      summary: 'Transactions of an IBAN account',
      description:
        'Booked and pending transactions from the read model, newest first. `dateFrom` after `dateTo` is 400 naming ' +
        `dateFrom; a malformed ibanId 400; another user's account 404.${v === 8 ? ' `x-agent-hash` (optional): when sent it must be the agent of the user, else 404.' : ''}`,
      security:
        v === 8
          ? security(['userHash'], ['userToken'], ['userHash', 'agentHash'], ['userToken', 'agentHash'])
          : USER_SECURITY,
      request: { params: z.object({ ibanId: ibanIdParam }), query: dateRangeQuery },
      responses: {
        200: {
          description: 'The transactions',
          content: { 'application/json': { schema: transactionListSchema } },
        },
        ...errorResponses,
      },
    }),
  handler: (v) => async (c) => {
    const user = await requireAccountUser(c, { agentHeader: v === 8 });
    const ibanId = c.req.valid('param').ibanId;
    return c.json(
      await openbanking.listTransactions(c.get('deps'), { user, ibanId, ...c.req.valid('query') }),
      200,
    );
  },
});
