import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { CONSENT_KINDS } from '../../domain/openbanking/consents.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { consentSummarySchema } from './account-schemas.ts';
import { countryQueryField } from './bank-schemas.ts';
import { requireUser, USER_SECURITY } from './identity.ts';

/**
 * `GET /api/8/tokens`: the user's access tokens at banks, that is their consents (the bank consent is the
 * token the gateway reads with), newest first, optionally of the banks of one `country`.
 */

const tokenSchema = consentSummarySchema
  .extend({
    kind: z.enum(CONSENT_KINDS),
    bankHash: z.string(),
    bankName: z.string(),
    country: z.string().openapi({ example: 'BG' }),
    accounts: z.number().int().openapi({ description: 'Live accounts this consent currently serves' }),
    statusReason: z.string().nullable(),
    createdAt: z.string(),
    finishedAt: z.string().nullable().openapi({ description: 'When the SCA flow ended' }),
  })
  .openapi('ConsentToken');

export const tokensOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'get',
      path: '/tokens',
      operationId: 'listTokens',
      tags: ['Account information'],
      summary: 'Lists the user’s tokens (consents) per bank',
      description:
        'Every consent of the user, newest first, with its state, the bank’s status, validity and the number of accounts ' +
        'it serves. `country` (ISO 3166-1 alpha-2) keeps the consents at banks of that country.',
      security: USER_SECURITY,
      request: { query: z.object({ country: countryQueryField }) },
      responses: {
        200: {
          description: 'The tokens',
          content: {
            'application/json': {
              schema: z.object({ tokens: z.array(tokenSchema) }).openapi('ConsentTokenList'),
            },
          },
        },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { userId } = await requireUser(c);
    return c.json(
      await openbanking.listConsentTokens(c.get('deps'), { userId, country: c.req.valid('query').country }),
      200,
    );
  },
});
