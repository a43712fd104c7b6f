import { z } from '@hono/zod-openapi';
import {
  CONSENT_STATES,
  IBAN_ID_PATTERN,
  TRANSACTION_ID_PATTERN,
} from '../../domain/openbanking/consents.ts';
import { CONSENT_STATUSES } from '../../domain/openbanking/xs2a.ts';

/**
 * Schemas shared by the account-information operations (GET ibans, balance, transactions, consents,
 * DELETE iban, ...); their use cases are application/openbanking/accounts.ts.
 */

export const ibanIdParam = z
  .string()
  .regex(IBAN_ID_PATTERN, 'must be an ibanId from GET ibans (iba_ + 24 hex characters)')
  .openapi({
    param: { name: 'ibanId', in: 'path' },
    description: 'Id of one of the user’s accounts, from GET ibans (not the IBAN)',
    example: 'iba_5b0f1f3c9d2e4a7b8c6d0e1f',
  });

export const transactionIdParam = z
  .string()
  .regex(TRANSACTION_ID_PATTERN, 'must be a transactionId from the transactions list')
  .openapi({
    param: { name: 'transactionId', in: 'path' },
    description: 'The transaction’s id, from GET transactions/{ibanId}',
    example: 'tx-3f2a9c0d1e2b3c4d5e6f',
  });

const isoDate = (name: string) =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
    .refine(
      (value) =>
        !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) &&
        new Date(`${value}T00:00:00Z`).toISOString().startsWith(value),
      'not a calendar date',
    )
    .optional()
    .openapi({
      description: `${name} (YYYY-MM-DD), inclusive`,
      example: name === 'dateFrom' ? '2026-10-01' : '2026-10-31',
    });

/** `dateFrom`/`dateTo` of the transaction reads (plus `extra` fields); dateFrom after dateTo is 400 naming dateFrom. */
export const dateRangeQueryWith = <E extends z.ZodRawShape>(extra: E) =>
  z.object({ dateFrom: isoDate('dateFrom'), dateTo: isoDate('dateTo'), ...extra }).refine(
    (query) => {
      const range = query as { dateFrom?: string; dateTo?: string };
      return !range.dateFrom || !range.dateTo || range.dateFrom <= range.dateTo;
    },
    { message: 'must not be after dateTo', path: ['dateFrom'] },
  );
export const dateRangeQuery = dateRangeQueryWith({});

export const consentSummarySchema = z
  .object({
    consentId: z.string().openapi({ example: 'con_0f8fad5b...' }),
    status: z.enum(CONSENT_STATES).openapi({
      description:
        'The gateway’s consent state: AWAITING_SCA, ACTIVE, REJECTED, ABANDONED, EXPIRED, FAILED, REVOKED, TERMINATED ' +
        '(docs/openbanking.md, "Consent states")',
      example: 'ACTIVE',
    }),
    bankStatus: z.enum(CONSENT_STATUSES).nullable().openapi({
      description: 'The bank’s (XS2A) consent status when last read',
      example: 'valid',
    }),
    bankStatusCheckedAt: z.string().nullable(),
    validUntil: z
      .string()
      .openapi({ description: 'Last day the consent may be used (YYYY-MM-DD)', example: '2027-02-21' }),
    frequencyPerDay: z
      .number()
      .int()
      .openapi({ description: 'Reads a day the bank allows without the user', example: 4 }),
    accessExceededAt: z.string().nullable().openapi({
      description: 'Last time the bank refused a read with 429 ACCESS_EXCEEDED (the day’s reads used up)',
    }),
  })
  .openapi('AccountConsent');

export const freshnessSchema = z
  .object({
    refreshedAt: z.string().nullable().openapi({ description: 'Last successful read from the bank' }),
    refreshAttemptedAt: z.string().nullable(),
    refreshError: z
      .string()
      .nullable()
      .openapi({
        description:
          'Why the last refresh did not reach the bank’s data (access_exceeded, bank_unavailable, consent_expired, ' +
          'consent_invalid, account_unknown, bank_error); the data shown is then the last read',
        example: null,
      }),
  })
  .openapi('ReadModelFreshness');

export const accountSchema = z
  .object({
    ibanId: z.string().openapi({ example: 'iba_5b0f1f3c9d2e4a7b8c6d0e1f' }),
    iban: z.string().openapi({ example: 'BG18SBXA96611000000001' }),
    currency: z.string().openapi({ example: 'BGN' }),
    name: z.string().nullable().openapi({ example: 'Alice current account' }),
    product: z.string().nullable().openapi({ example: 'Current account' }),
    ownerName: z.string().nullable().openapi({ example: 'Alice Ivanova' }),
    bic: z.string().nullable().openapi({ example: 'SBXABGSF' }),
    bankHash: z.string(),
    bankName: z.string().openapi({ example: 'Sandbox Bank A' }),
    addedAt: z.string(),
    freshness: freshnessSchema,
    consent: consentSummarySchema
      .optional()
      .openapi({ description: 'Only with the header consent-details: true' }),
  })
  .openapi('IbanAccount');

export const transactionSchema = z
  .object({
    transactionId: z.string().openapi({ example: 'tx-3f2a9c0d1e2b3c4d5e6f' }),
    bookingStatus: z.enum(['booked', 'pending']),
    bookingDate: z.string().nullable().openapi({ example: '2026-11-20' }),
    valueDate: z.string().nullable().openapi({ example: '2026-11-20' }),
    amount: z.string().openapi({ description: 'Signed decimal; negative is money out', example: '-12.50' }),
    currency: z.string().openapi({ example: 'BGN' }),
    creditorName: z.string().nullable(),
    creditorIban: z.string().nullable(),
    debtorName: z.string().nullable(),
    debtorIban: z.string().nullable(),
    remittanceInformation: z.string().nullable(),
    entryReference: z.string().nullable(),
    bankTransactionCode: z.string().nullable().openapi({ example: 'PMNT-CCRD-POSD' }),
  })
  .openapi('Transaction');
