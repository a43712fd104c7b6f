import { z } from '@hono/zod-openapi';
import { KYC_STATUSES } from '../../domain/openbanking/kyc.ts';

/** Field schemas and the user record shared by the agent, signup, KYC and user-list operations (application/openbanking/users.ts). */

export const emailField = z
  .string()
  .max(254)
  .pipe(z.email({ message: 'not a valid e-mail address' }))
  .openapi({ description: 'E-mail address', example: 'maria.ivanova@example.com' });

/** An http(s) URL the gateway calls or sends a browser to. */
export const webUrlField = z
  .string()
  .max(2048)
  .pipe(z.url({ protocol: /^https?$/, message: 'must be an http or https URL' }))
  .openapi({ example: 'https://agent.example.com/hooks/openbanking' });

/** A person's name part: letters (any script), spaces, apostrophes, dots and hyphens. */
export const personNameField = (description: string, example: string) =>
  z
    .string()
    .trim()
    .min(1)
    .max(100)
    .regex(/^\p{L}[\p{L}\p{M}' .-]*$/u, 'may contain only letters, spaces, apostrophes, dots and hyphens')
    .openapi({ description, example });

export const kycStatusField = z.enum(KYC_STATUSES).openapi({
  description:
    'NOT_STARTED (initial) → PENDING → VERIFIED | REJECTED; REJECTED → PENDING; VERIFIED → REJECTED. Set by the agent with POST /api/8/kyc/update.',
  example: 'VERIFIED',
});

export const userRecordSchema = z
  .object({
    userId: z
      .string()
      .openapi({ description: 'Id of the user (not a credential)', example: 'usr_0f8fad5b...' }),
    agentId: z.string().openapi({ example: 'agt_3f2a9c0d...' }),
    companyName: z.string().nullable().openapi({ example: 'Acme Ltd' }),
    uic: z
      .string()
      .nullable()
      .openapi({ description: 'Bulgarian UIC (EIK) of the company', example: '175074752' }),
    name: z.string().openapi({ example: 'Maria' }),
    middleName: z.string().nullable().openapi({ example: 'Petrova' }),
    family: z.string().openapi({ example: 'Ivanova' }),
    identityHash: z.string().nullable().openapi({ description: "The agent's own reference of the person" }),
    email: z.string().openapi({ example: 'maria.ivanova@example.com' }),
    webhookUrl: z.string().nullable(),
    kycStatus: kycStatusField,
    createdAt: z.string().openapi({ example: '2026-11-23T09:00:00.000Z' }),
  })
  .openapi('User');
