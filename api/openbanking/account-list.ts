import { createRoute, z } from '@hono/zod-openapi';
import { desc, eq } from 'drizzle-orm';
import { obBanks, obListedAccounts } from '../../db/schema/openbanking.ts';
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
    const rows = await c
      .get('deps')
      .db.select({ listed: obListedAccounts, bankName: obBanks.name })
      .from(obListedAccounts)
      .innerJoin(obBanks, eq(obBanks.bankHash, obListedAccounts.bankHash))
      .where(eq(obListedAccounts.userId, userId))
      .orderBy(desc(obListedAccounts.listedAt));
    const latest = new Map<string, (typeof rows)[number]>();
    for (const row of rows) {
      const key = `${row.listed.bankHash}|${row.listed.iban}|${row.listed.currency}`;
      if (!latest.has(key)) latest.set(key, row);
    }
    return c.json(
      {
        accounts: [...latest.values()].map(({ listed, bankName }) => ({
          iban: listed.iban,
          ownerName: listed.ownerName,
          currency: listed.currency,
          name: listed.name,
          bankHash: listed.bankHash,
          bankName,
          consentId: listed.consentId,
          listedAt: listed.listedAt.toISOString(),
        })),
      },
      200,
    );
  },
});
