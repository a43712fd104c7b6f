import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { freshnessSchema, ibanIdParam } from './account-schemas.ts';
import { requireAccountUser, USER_SECURITY } from './identity.ts';

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
    const user = await requireAccountUser(c);
    return c.json(
      await openbanking.readBalance(c.get('deps'), { user, ibanId: c.req.valid('param').ibanId }),
      200,
    );
  },
});
