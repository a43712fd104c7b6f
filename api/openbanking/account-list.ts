import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { requireUser, USER_SECURITY } from './identity.ts';

/**
 * `GET /api/8/account-list`: the accounts the user's one-shot account-list consents enumerated (POST
 * consent with `kind: "account-list"`): IBAN and owner name, the latest listing per account. Read model only.
 */

const listedAccountSchema = z
  .object({
    iban: z.string().openapi({ example: 'BG18SBXA96611000000001' }),
    ownerName: z.string().nullable().openapi({ example: 'Alice Ivanova' }),
    currency: z.string().openapi({ example: 'BGN' }),
    name: z.string().nullable().openapi({ example: 'Alice current account' }),
    bankHash: z.string(),
    bankName: z.string(),
    consentId: z.string().openapi({ description: 'The account-list consent that listed it' }),
    listedAt: z.string(),
  })
  .openapi('ListedAccount');

export const accountListOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'get',
      path: '/account-list',
      operationId: 'accountList',
      tags: ['Account information'],
      summary: 'IBAN and owner name of the user’s enumerated accounts',
      description:
        'What the user’s one-shot account-list consents (POST consent with `kind: "account-list"`) enumerated, the latest ' +
        'listing of each account first. Empty until such a consent is ACTIVE.',
      security: USER_SECURITY,
      responses: {
        200: {
          description: 'The listed accounts',
          content: {
            'application/json': {
              schema: z.object({ accounts: z.array(listedAccountSchema) }).openapi('AccountList'),
            },
          },
        },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { userId } = await requireUser(c);
    return c.json(await openbanking.listListedAccounts(c.get('deps'), { userId }), 200);
  },
});
