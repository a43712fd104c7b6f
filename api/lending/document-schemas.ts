import { z } from '@hono/zod-openapi';
import { docTypeIds } from '../../domain/lending/loan-documents.ts';
import { errorBodySchema } from '../shared/errors.ts';
import { loanErrorResponses } from './loan-schemas.ts';

/**
 * What the loan document operations answer and take (decision 0040), as the OpenAPI document shows it.
 * The codes are sent and checked by application/lending/signing-codes.ts.
 */

export const docTypeIdSchema = z.enum(docTypeIds).openapi({
  description: 'A system document type: `pre-contract-information` or `loan-agreement`',
  example: 'loan-agreement',
});

export const loanDocumentSchema = z
  .object({
    docTypeId: docTypeIdSchema,
    name: z.string().openapi({ example: 'Loan agreement' }),
    status: z.enum(['unsigned', 'signed', 'declined']),
    contentHash: z.string().openapi({ description: 'SHA-256 of `content`, what a signature is given on' }),
    decidedAt: z.string().nullable().openapi({ description: 'When it was signed or declined' }),
    signable: z
      .boolean()
      .openapi({ description: 'SignDocument, ResendSmsCode and DeclineDocument apply now' }),
  })
  .openapi('LoanDocument');
export const loanDocumentWithContentSchema = loanDocumentSchema
  .extend({ content: z.string().openapi({ description: 'The document, plain text' }) })
  .openapi('LoanDocumentWithContent');

/** A document operation's query: the document type (all three name it). */
export const docTypeQuery = z.object({ docTypeId: docTypeIdSchema });

export const documentErrorResponses = {
  ...loanErrorResponses,
  409: {
    description:
      '`invalid_loan_status` (documents are signed in Waiting for approval), `documents_not_available` (no accepted ' +
      'offer), `document_already_signed`, `document_declined`, `signing_code_not_sent` (with `fields` naming ' +
      '`phone` when the customer’s phone is missing or one the messaging gateway refuses), `customer_phone_missing`',
    content: { 'application/json': { schema: errorBodySchema } },
  },
  429: {
    description:
      '`sms_code_limit_reached` (ResendSmsCode): LENDING_SIGNING_CODE_SENDS_PER_HOUR codes were sent for this ' +
      'loan this hour; retry after `Retry-After` seconds',
    content: { 'application/json': { schema: errorBodySchema } },
  },
  502: {
    description:
      '`sms_not_sent`: the messaging gateway did not accept the SMS (the previous code stays valid); `fields` names ' +
      '`phone` when the gateway refused the customer’s number (correct it with Customer/Details)',
    content: { 'application/json': { schema: errorBodySchema } },
  },
  503: {
    description: '`messaging_not_configured`: LENDING_MESSAGING_TOKEN is not set',
    content: { 'application/json': { schema: errorBodySchema } },
  },
} as const;

export const signingCodeSentSchema = z
  .object({
    docTypeId: docTypeIdSchema,
    sentTo: z.string().openapi({ description: 'The customer’s phone, masked', example: '+3598*****111' }),
    expiresAt: z.string(),
    attempts: z.number().int().openapi({ description: 'Wrong codes this code survives', example: 5 }),
    sendsPerHour: z.number().int().openapi({
      description:
        'Codes ResendSmsCode sends for this loan in one clock hour (LENDING_SIGNING_CODE_SENDS_PER_HOUR)',
      example: 5,
    }),
    sendsLeft: z.number().int().openapi({ description: 'Codes left in this hour', example: 4 }),
    sendsResetAt: z.string().openapi({ description: 'When the next hour starts (ISO 8601)' }),
  })
  .openapi('SigningCodeSent');
