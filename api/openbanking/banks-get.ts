import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { bankHashParam, bankSchema, countryQueryField } from './bank-schemas.ts';
import { requireUser, USER_SECURITY } from './identity.ts';

/**
 * `GET /api/8/banks/{bankHash}`: one bank. `country`, when given, must be the bank's country (else 404),
 * so a frontend that shows one country's banks cannot be handed another country's bank.
 */
export const banksGetOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'get',
      path: '/banks/{bankHash}',
      operationId: 'getBank',
      tags: ['Banks'],
      summary: 'One bank',
      description:
        'The bank with its authentication flow and maintenance windows. 404 when the bank is unknown, no longer ' +
        'active, or not of `country`.',
      security: USER_SECURITY,
      request: {
        params: z.object({ bankHash: bankHashParam }),
        query: z.object({ country: countryQueryField }),
      },
      responses: {
        200: { description: 'The bank', content: { 'application/json': { schema: bankSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    await requireUser(c);
    const bank = await openbanking.findBank(c.get('deps'), {
      bankHash: c.req.valid('param').bankHash,
      country: c.req.valid('query').country,
    });
    return c.json(bank, 200);
  },
});
