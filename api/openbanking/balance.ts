import { createRoute, z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import { obBalances } from '../../db/schema/openbanking.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { freshnessSchema, ibanIdParam, requireUserAccount, toFreshness } from './account-records.ts';
import { USER_SECURITY } from './identity.ts';

/** `GET /api/{6,7,8}/balance/{ibanId}`: the account's balances as last read from the bank. */

const balanceSchema = z
  .object({
    ibanId: z.string(),
    iban: z.string(),
    currency: z.string(),
    balances: z.array(
      z
        .object({
          balanceType: z.string().openapi({
            description:
              'XS2A balance type: closingBooked, expected, interimAvailable, interimBooked, openingBooked',
            example: 'closingBooked',
          }),
          amount: z.string().openapi({ example: '1520.35' }),
          currency: z.string().openapi({ example: 'BGN' }),
          referenceDate: z.string().nullable(),
          lastChangeDateTime: z.string().nullable(),
          fetchedAt: z.string(),
        })
        .openapi('Balance'),
    ),
    freshness: freshnessSchema,
  })
  .openapi('AccountBalance');

export const balanceOperation = defineOperation({
  versions: [6, 7, 8],
  route: () =>
    createRoute({
      method: 'get',
      path: '/balance/{ibanId}',
      operationId: 'getBalance',
      tags: ['Account information'],
      summary: 'Balance of an IBAN account',
      description:
        'The balances of the account from the read model (never a call to the bank). A malformed ibanId is 400; ' +
        'an account that is not the user’s is 404. `freshness` tells when the bank was last read.',
      security: USER_SECURITY,
      request: { params: z.object({ ibanId: ibanIdParam }) },
      responses: {
        200: { description: 'The balances', content: { 'application/json': { schema: balanceSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { account } = await requireUserAccount(c, c.req.valid('param').ibanId);
    const rows = await c
      .get('deps')
      .db.select()
      .from(obBalances)
      .where(eq(obBalances.accountId, account.id))
      .orderBy(obBalances.balanceType);
    return c.json(
      {
        ibanId: account.id,
        iban: account.iban,
        currency: account.currency,
        balances: rows.map((row) => ({
          balanceType: row.balanceType,
          amount: row.amount,
          currency: row.currency,
          referenceDate: row.referenceDate,
          lastChangeDateTime: row.lastChangeDateTime,
          fetchedAt: row.fetchedAt.toISOString(),
        })),
        freshness: toFreshness(account),
      },
      200,
    );
  },
});
