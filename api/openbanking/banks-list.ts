import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { bankSchema, countryQueryField } from './bank-schemas.ts';
import { requireUser, USER_SECURITY } from './identity.ts';

/**
 * `GET /api/{6,7,8}/banks`: the banks a user can connect accounts of. Version 7 adds the `country`
 * filter; in version 6 it is not a parameter (a `country` query is ignored there, as any unknown one).
 */

const banksListSchema = z.object({ banks: z.array(bankSchema) }).openapi('BankList');

export const banksListOperation = defineOperation({
  versions: [6, 7, 8],
  route: (v) =>
    createRoute({
      method: 'get',
      path: '/banks',
      operationId: 'listBanks',
      tags: ['Banks'],
      summary: 'Lists banks',
      description:
        'Active banks, by country then name, each with its authentication flow and any current or announced ' +
        `maintenance window.${v === 6 ? '' : ' `country` keeps the banks of one country.'}`,
      security: USER_SECURITY,
      request: { query: v === 6 ? z.object({}) : z.object({ country: countryQueryField }) },
      responses: {
        200: { description: 'The banks', content: { 'application/json': { schema: banksListSchema } } },
        400: errorResponses[400],
        401: errorResponses[401],
      },
    }),
  handler: (v) => async (c) => {
    await requireUser(c);
    // Version 6 has no country parameter: whatever is sent is not read.
    const query = c.req.valid('query');
    const country = v !== 6 && 'country' in query ? query.country : undefined;
    return c.json({ banks: await openbanking.listBanks(c.get('deps'), { country }) }, 200);
  },
});
