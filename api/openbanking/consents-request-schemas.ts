import { z } from '@hono/zod-openapi';

/**
 * Consents requests ("cgate", unversioned paths under /api/cgate): an operator, acting for an agent,
 * asks one of the agent's users to grant a consent for given banks and scopes. The user's interface lists
 * its requests; a request is fulfilled when the user completes a consent that covers it
 * (fulfilConsentsRequests in activities/openbanking/consent.ts, called by the consent flow). The
 * records and lists the three cgate operations answer; use cases: application/openbanking/consents-requests.ts.
 */

export const CONSENT_SCOPES = ['accounts', 'balances', 'transactions'] as const;

export const requestBody = z
  .object({
    userHash: z
      .string()
      .min(1)
      .max(200)
      .openapi({ description: 'The user asked; one the agent enrolled', example: 'user_Zr5c...' }),
    banks: z
      .array(z.string().min(1).max(100))
      .max(20)
      .default([])
      .openapi({ description: 'Bank hashes the user is asked to connect; empty or omitted: any bank' }),
    scopes: z
      .array(z.enum(CONSENT_SCOPES))
      .min(1)
      .default([...CONSENT_SCOPES])
      .openapi({
        description: 'What the consent must cover; all three when omitted',
        example: ['accounts', 'balances'],
      }),
    message: z.string().trim().min(1).max(500).optional().openapi({
      description: 'Shown to the user by the user interface',
      example: 'Please connect your salary account',
    }),
  })
  .openapi('ConsentsRequestDTO');

export const consentsRequestSchema = z
  .object({
    id: z.string().openapi({ example: 'cgr_7d3b6a0e...' }),
    userId: z.string(),
    agentId: z.string(),
    banks: z.array(z.string()),
    scopes: z.array(z.enum(CONSENT_SCOPES)),
    message: z.string().nullable(),
    fulfilled: z.boolean(),
    consentId: z.string().nullable().openapi({ description: 'The consent that fulfilled it' }),
    createdAt: z.string(),
    fulfilledAt: z.string().nullable(),
  })
  .openapi('ConsentsRequest');

export const listSchema = z.object({ items: z.array(consentsRequestSchema) }).openapi('ConsentsRequestList');

export const fulfilledQuery = z.object({
  fulfilled: z
    .enum(['true', 'false'])
    .optional()
    .openapi({ description: 'true: fulfilled only; false: open only; omitted: all' }),
});
