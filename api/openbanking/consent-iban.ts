import { createRoute, z } from '@hono/zod-openapi';
import { electronicFormatIBAN, isValidIBAN } from 'ibantools';
import { openbanking } from '../../application/openbanking/index.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
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
    return c.json(await openbanking.findConsentDetailsByIban(c.get('deps'), { agentId, iban }), 200);
  },
});
