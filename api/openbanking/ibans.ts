import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { accountSchema } from './account-schemas.ts';
import { CONSENT_DETAILS_HEADER, readConsentDetails, requireUser, USER_SECURITY } from './identity.ts';

/**
 * `GET /api/{6,7,8}/ibans`: the user's bank accounts, from the read model. With `consent-details: true`
 * each account also carries its consent (state, the bank's status, validUntil, frequencyPerDay, last 429).
 */

const ibanListSchema = z.object({ ibans: z.array(accountSchema) }).openapi('IbanAccountList');

export const ibansOperation = defineOperation({
  versions: [6, 7, 8],
  route: () =>
    createRoute({
      method: 'get',
      path: '/ibans',
      operationId: 'listIbans',
      tags: ['Account information'],
      summary: 'Lists the user’s IBAN accounts',
      description:
        'The accounts added by the user’s consents, oldest first, each with `freshness` (when it was last read from ' +
        'the bank). Header `consent-details: true` adds each account’s `consent`; anything but true/false is 400.',
      security: USER_SECURITY,
      request: {
        headers: z.object({
          [CONSENT_DETAILS_HEADER]: z
            .string()
            .max(10)
            .optional()
            .openapi({ description: '`true`: include each account’s consent', example: 'true' }),
        }),
      },
      responses: {
        200: { description: 'The accounts', content: { 'application/json': { schema: ibanListSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { userId } = await requireUser(c);
    const withConsent = readConsentDetails(c);
    return c.json(await openbanking.listAccounts(c.get('deps'), { userId, withConsent }), 200);
  },
});
