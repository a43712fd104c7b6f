import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { VerificationCaller } from '../../application/lending/index.ts';
import { publicBaseUrl } from '../shared/public-url.ts';
import { lendingErrorResponses, requireCustomer } from './auth.ts';
import type { LendingEnv } from './context.ts';
import { bankVerificationErrors } from './payment-option-schemas.ts';

/**
 * What the bank verification operations answer and take (decision 0042), as the OpenAPI document shows
 * it, and the request facts they hand the use cases (application/lending/bank-verification.ts).
 */

export const bankVerificationSchema = z
  .object({
    loanId: z.string().nullable().openapi({
      example: '482913675',
      description: 'The loan verified; null only when asked without `loanId` by a customer who has no loan',
    }),
    verificationId: z.string().nullable().openapi({ example: 'bkv_9d2c4f1e0a7b4c6d8e3f2a10' }),
    status: z.enum(['not_started', 'pending', 'verified', 'not_verified', 'skipped']).openapi({
      description:
        '`not_started`: no verification yet; `pending`: the consent waits for the customer at the bank; ' +
        '`verified`: the bank listed one of the customer’s accounts in their name; `not_verified`: it did not, or ' +
        'the consent did not complete (`reason`); `skipped`: CancelBankVerification',
    }),
    processed: z.boolean().openapi({ description: 'The verification is decided (not pending)' }),
    verified: z.boolean(),
    bankHash: z.string().nullable(),
    frameUrl: z.string().nullable().openapi({ description: 'The bank’s SCA page to open in the frame' }),
    frameExpiresAt: z
      .string()
      .nullable()
      .openapi({ description: 'The customer must finish at the bank by then' }),
    consentStatus: z.string().nullable().openapi({ description: 'The consent at the gateway, as last read' }),
    matchedIban: z.string().nullable(),
    reason: z.string().nullable(),
    frameDataSavedAt: z.string().nullable(),
    decidedAt: z.string().nullable(),
  })
  .openapi('BankVerification');

/** The answers of the operations that answer with the verification itself (IsDataProcessed, SaveData). */
export const bankVerificationResponses = {
  200: {
    description: 'The verification',
    content: { 'application/json': { schema: bankVerificationSchema } },
  },
  ...lendingErrorResponses,
  ...bankVerificationErrors,
};

export const saveDataSchema = z
  .object({
    loanId: z.string().min(1).max(40).openapi({ example: '482913675' }),
    state: z.string().min(1).max(200).optional().openapi({
      description: 'The `state` the frame’s return URL carried (checked against the verification’s consent)',
    }),
    consentId: z.string().min(1).max(100).optional(),
  })
  .openapi('BankVerificationData');

/** The token's customer of the request's tenant (403 for a user who is not a customer). */
export const verifyingCustomer = (c: Context<LendingEnv>) => ({
  tenantId: c.get('lendingTenant').id,
  customerId: requireCustomer(c).customerId,
});

/** Where the request came from: the API's public base and the customer's browser. */
export const verificationCaller = (c: Context<LendingEnv>): VerificationCaller => ({
  apiBaseUrl: publicBaseUrl(c),
  userAgent: c.req.header('user-agent'),
});
