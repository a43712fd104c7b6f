import { createRoute, z } from '@hono/zod-openapi';
import { and, desc, eq } from 'drizzle-orm';
import { electronicFormatIBAN, isValidIBAN } from 'ibantools';
import type { UseCaseDeps } from '../../application/shared/deps.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import { obAccounts, obConsents, obUsers } from '../../db/schema/openbanking.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { agentAccounts } from './account-records.ts';
import { AGENT_SECURITY, requireAgent } from './identity.ts';

/**
 * `GET /api/8/consent/iban/{iban}`: the consent behind an IBAN account of one of the agent's users.
 * An IBAN that no live user of the agent holds is 404 (another agent's accounts are not revealed).
 */

export const consentDetailsSchema = z
  .object({
    iban: z.string().openapi({ example: 'BG80BNBG96611020345678' }),
    ibanId: z.string().openapi({ description: 'The account’s ibanId (as in GET ibans)' }),
    userId: z.string().openapi({ example: 'usr_0f8fad5b...' }),
    bankHash: z.string().openapi({ description: 'The bank of the account' }),
    consentId: z.string().openapi({ description: 'The gateway’s consent id' }),
    status: z.string().openapi({
      description:
        'Consent status (Berlin Group: received, valid, rejected, expired, revokedByPsu, terminatedByTpp)',
      example: 'valid',
    }),
    validUntil: z.string().nullable().openapi({ example: '2027-02-21' }),
    createdAt: z.string().openapi({ example: '2026-11-23T09:00:00.000Z' }),
  })
  .openapi('ConsentDetails');

export type ConsentDetails = z.infer<typeof consentDetailsSchema>;

/**
 * The consent details of `iban` among the agent's live users (the most recently added account with that
 * IBAN), or undefined. Read from the account read model; `status` is the bank's consent status as last
 * read, or the gateway's state while the bank has not been asked.
 */
export async function findConsentDetailsByIban(
  deps: UseCaseDeps,
  query: { agentId: string; iban: string },
): Promise<ConsentDetails | undefined> {
  const [row] = await deps.db
    .select({ account: obAccounts, consent: obConsents })
    .from(obAccounts)
    .innerJoin(obConsents, eq(obConsents.id, obAccounts.consentId))
    .innerJoin(obUsers, eq(obUsers.id, obAccounts.userId))
    .where(and(eq(obAccounts.iban, query.iban), agentAccounts(query.agentId)))
    .orderBy(desc(obAccounts.createdAt))
    .limit(1);
  if (!row) return undefined;
  return {
    iban: row.account.iban,
    ibanId: row.account.id,
    userId: row.account.userId,
    bankHash: row.account.bankHash,
    consentId: row.consent.id,
    status: row.consent.bankStatus ?? row.consent.status,
    validUntil: row.consent.validUntil,
    createdAt: row.consent.createdAt.toISOString(),
  };
}

export const consentIbanOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'get',
      path: '/consent/iban/{iban}',
      operationId: 'consentByIban',
      tags: ['Agent users'],
      summary: 'Consent details for an IBAN',
      description:
        'The consent of the account with this IBAN held by one of the agent’s users. A malformed IBAN (checksum, ' +
        'length, country) is 400; an IBAN none of the agent’s users holds is 404.',
      security: AGENT_SECURITY,
      request: {
        params: z.object({
          iban: z
            .string()
            .max(64)
            .openapi({ param: { name: 'iban', in: 'path' }, example: 'BG80BNBG96611020345678' }),
        }),
      },
      responses: {
        200: {
          description: 'The consent',
          content: { 'application/json': { schema: consentDetailsSchema } },
        },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { agentId } = await requireAgent(c);
    const iban = electronicFormatIBAN(decodeURIComponent(c.req.valid('param').iban)) ?? '';
    if (!isValidIBAN(iban)) throw Refusal.field('iban', 'not a valid IBAN');
    const details = await findConsentDetailsByIban(c.get('deps'), { agentId, iban });
    if (!details) throw Refusal.notFound('Consent for this IBAN');
    return c.json(details, 200);
  },
});
