import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { consentSummarySchema, ibanIdParam } from './account-schemas.ts';
import { requireAccountUser, USER_SECURITY } from './identity.ts';

/**
 * `GET /api/{6,7,8}/consents/{ibanId}`: the consents that gave access to the account, the current one
 * first. The spec says it "asks the bank": the bank's answer (its consent status) is read by the
 * gateway's activities — after the SCA and on every refresh (cache initialisation) — and stored, so this
 * read shows it with `bankStatusCheckedAt` and does not call the bank (decision record 0019).
 */

const accountConsentSchema = consentSummarySchema
  .extend({
    current: z.boolean().openapi({ description: 'The consent the account is read with now' }),
    createdAt: z.string(),
  })
  .openapi('AccountConsentEntry');

export const consentsOperation = defineOperation({
  versions: [6, 7, 8],
  route: () =>
    createRoute({
      method: 'get',
      path: '/consents/{ibanId}',
      operationId: 'accountConsents',
      tags: ['Account information'],
      summary: 'Consents of an IBAN account',
      description:
        'Every consent that covered the account, the current one first, each with the bank’s status as last read ' +
        '(`bankStatusCheckedAt`). Malformed ibanId 400; another user’s account 404.',
      security: USER_SECURITY,
      request: { params: z.object({ ibanId: ibanIdParam }) },
      responses: {
        200: {
          description: 'The consents',
          content: {
            'application/json': {
              schema: z
                .object({ ibanId: z.string(), iban: z.string(), consents: z.array(accountConsentSchema) })
                .openapi('AccountConsents'),
            },
          },
        },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const user = await requireAccountUser(c);
    return c.json(
      await openbanking.listAccountConsents(c.get('deps'), { user, ibanId: c.req.valid('param').ibanId }),
      200,
    );
  },
});
