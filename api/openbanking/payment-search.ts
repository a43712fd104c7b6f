import { z } from '@hono/zod-openapi';
import { decimalAmount } from '../../domain/decimal-amount.ts';
import {
  minorOf,
  PAYMENT_KINDS,
  PAYMENT_STATES,
  PAYMENT_STATUSES,
} from '../../domain/openbanking/payments.ts';
import { paymentSchema } from './payment-schemas.ts';

/**
 * The schemas of the agent's payment searches (`POST payments`, `POST payments/search-last-updated`,
 * the entries of `POST bulk-payments/search`; use cases: application/openbanking/payment-searches.ts),
 * and the date and paging fields every report shares.
 */

export const PAGE_SIZE = { default: 50, max: 500 } as const;

/** A calendar day YYYY-MM-DD (UTC). */
export const isoDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date YYYY-MM-DD', abort: true })
  .refine((value) => {
    const day = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(value);
  }, 'not a calendar date');

/** `dateFrom` must not be after `dateTo` (400 naming dateFrom). */
export const datesInOrder = <T extends { dateFrom?: string | undefined; dateTo?: string | undefined }>(
  value: T,
) => !value.dateFrom || !value.dateTo || value.dateFrom <= value.dateTo;
export const DATES_OUT_OF_ORDER = { message: 'must not be after dateTo', path: ['dateFrom'] };

export const pagingFields = {
  page: z.number().int().min(1).default(1).openapi({ description: 'Page number, from 1', example: 1 }),
  size: z
    .number()
    .int()
    .min(1)
    .max(PAGE_SIZE.max)
    .default(PAGE_SIZE.default)
    .openapi({ description: `Items per page, 1-${PAGE_SIZE.max}`, example: PAGE_SIZE.default }),
};

const amountFilter = decimalAmount({ integerDigits: 12, min: 'non-negative' });

export const paymentCriteriaSchema = z
  .object({
    statuses: z
      .array(z.enum(PAYMENT_STATUSES))
      .min(1)
      .max(3)
      .optional()
      .openapi({ example: ['CONFIRMED'] }),
    states: z.array(z.enum(PAYMENT_STATES)).min(1).max(PAYMENT_STATES.length).optional(),
    kinds: z.array(z.enum(PAYMENT_KINDS)).min(1).max(PAYMENT_KINDS.length).optional(),
    userId: z.string().min(1).max(64).optional(),
    ibanId: z.string().min(1).max(64).optional(),
    bankHash: z.string().min(1).max(64).optional(),
    hookHash: z.string().min(1).max(100).optional(),
    bulkId: z.string().min(1).max(64).optional(),
    inBulk: z
      .boolean()
      .optional()
      .openapi({ description: 'true: bulk entries only; false: single payments only' }),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'an ISO 4217 code')
      .optional(),
    creditorIban: z.string().min(1).max(64).optional(),
    amountFrom: amountFilter.optional().openapi({ description: 'At least this amount' }),
    amountTo: amountFilter.optional().openapi({ description: 'At most this amount' }),
    dateFrom: isoDay
      .optional()
      .openapi({ description: 'Created on or after this day (UTC)', example: '2026-11-01' }),
    dateTo: isoDay
      .optional()
      .openapi({ description: 'Created on or before this day (UTC)', example: '2026-11-30' }),
    updatedFrom: isoDay.optional().openapi({ description: 'Last changed on or after this day (UTC)' }),
    updatedTo: isoDay.optional().openapi({ description: 'Last changed on or before this day (UTC)' }),
  })
  .refine(datesInOrder, DATES_OUT_OF_ORDER)
  .refine((value) => !value.updatedFrom || !value.updatedTo || value.updatedFrom <= value.updatedTo, {
    message: 'must not be after updatedTo',
    path: ['updatedFrom'],
  })
  .refine(
    (value) => !value.amountFrom || !value.amountTo || minorOf(value.amountFrom) <= minorOf(value.amountTo),
    {
      message: 'must not be above amountTo',
      path: ['amountFrom'],
    },
  )
  .openapi('PaymentCriteria');

/** A payment as the agent's searches answer it: the payment's record, with its user and its bulk. */
export const agentPaymentSchema = paymentSchema
  .extend({
    userId: z.string(),
    bulkId: z.string().nullable().openapi({ description: 'The bulk it is an entry of' }),
    bulkSeq: z.number().int().nullable().openapi({ description: 'Its position in the bulk, from 0' }),
  })
  .openapi('AgentPayment');

export const paymentPageSchema = z
  .object({
    page: z.number().int(),
    size: z.number().int(),
    total: z.number().int().openapi({ description: 'Payments matching the criteria, all pages' }),
    items: z.array(agentPaymentSchema),
  })
  .openapi('PaymentPage');
