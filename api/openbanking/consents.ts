import { createRoute, z } from '@hono/zod-openapi';
import { desc, eq } from 'drizzle-orm';
import { obConsentAccounts, obConsents } from '../../db/schema/openbanking.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import {
  consentSummarySchema,
  ibanIdParam,
  requireUserAccount,
  toConsentSummary,
} from './account-records.ts';
import { USER_SECURITY } from './identity.ts';

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
    const { account } = await requireUserAccount(c, c.req.valid('param').ibanId);
    const rows = await c
      .get('deps')
      .db.select({ consent: obConsents })
      .from(obConsentAccounts)
      .innerJoin(obConsents, eq(obConsents.id, obConsentAccounts.consentId))
      .where(eq(obConsentAccounts.accountId, account.id))
      .orderBy(desc(obConsents.createdAt));
    const consents = rows
      .map(({ consent }) => ({
        ...toConsentSummary(consent),
        current: consent.id === account.consentId,
        createdAt: consent.createdAt.toISOString(),
      }))
      .sort((a, b) => Number(b.current) - Number(a.current));
    return c.json({ ibanId: account.id, iban: account.iban, consents }, 200);
  },
});
