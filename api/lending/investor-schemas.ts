import { z } from '@hono/zod-openapi';
import { decimalAmount } from '../../domain/decimal-amount.ts';
import { bidStatuses } from '../../domain/lending/bids.ts';
import { customerAddressSchema, customerDetailsSchema } from '../../domain/lending/customers.ts';
import { loanStatuses } from '../../domain/lending/loan-lifecycle.ts';
import { errorBodySchema } from '../shared/errors.ts';
import { lendingErrorResponses } from './auth.ts';

/** Request and answer schemas of the Investor operations (decision 0052). */

/** A money amount: positive, at most 2 decimals. */
export const bidAmount = decimalAmount({ integerDigits: 13, example: '500.00' }).openapi({
  example: '500.00',
});

const customer = customerDetailsSchema.shape;

/** The customer's rules for the same fields (domain/lending/customers.ts). */
export const investorDetailsSchema = z
  .object({
    firstName: customer.firstName,
    lastName: customer.lastName,
    email: customer.email,
    phone: customer.phone,
    country: customerAddressSchema.shape.country,
  })
  .strict()
  .openapi('InvestorDetails');

export const investorPreferencesSchema = z
  .object({
    minAmount: bidAmount.optional().openapi({ description: 'Only loans of at least this amount' }),
    maxAmount: bidAmount.optional().openapi({ description: 'Only loans of at most this amount' }),
    minTerm: z
      .number()
      .int()
      .min(1)
      .max(1200)
      .optional()
      .openapi({ description: 'Only loans of at least this term' }),
    maxTerm: z
      .number()
      .int()
      .min(1)
      .max(1200)
      .optional()
      .openapi({ description: 'Only loans of at most this term' }),
    products: z
      .array(z.string().trim().min(1).max(100))
      .max(50)
      .optional()
      .openapi({ description: 'Only loans of these credit products (none: all)', example: ['Personal 12'] }),
    maxBid: bidAmount
      .optional()
      .openapi({ description: 'No bid of yours may be larger (refused, naming `amount`)' }),
  })
  .strict()
  .openapi('InvestorPreferences');

export const opportunitySchema = z
  .object({
    loanId: z.string().openapi({ example: '482913775' }),
    productName: z.string(),
    amount: z.string().openapi({ example: '3000.00' }),
    currency: z.string().openapi({ example: 'EUR' }),
    term: z.number().int(),
    status: z.enum(loanStatuses),
    funded: z.string().openapi({ description: 'What active bids cover', example: '1200.00' }),
    available: z.string().openapi({ description: 'What is left to bid', example: '1800.00' }),
  })
  .openapi('InvestmentOpportunity');

export const bidSchema = z
  .object({
    id: z.string().openapi({ description: 'The bid’s id', example: 'bid_3f2a9c1d7e5b4a60c1d7e5b4' }),
    loanId: z.string(),
    amount: z.string().openapi({ example: '500.00' }),
    status: z.enum(bidStatuses).openapi({
      description: '`active` (counts towards the loan’s funding), `withdrawn`, or `invested` at disbursement',
    }),
    placedAt: z.string(),
    updatedAt: z.string(),
    investedOn: z.string().nullable().openapi({ description: 'The disbursement date, once invested' }),
  })
  .openapi('Bid');

const shareSchema = z
  .object({
    repaymentId: z.string(),
    date: z.string(),
    repaymentAmount: z.string().openapi({ description: 'The whole repayment' }),
    amount: z.string().openapi({ description: 'This investment’s pro-rata part of it' }),
  })
  .openapi('InvestmentShare');

export const investmentSchema = z
  .object({
    id: z.string().openapi({
      description: 'The investment’s id: the id of the bid that became the investment',
      example: 'bid_3f2a9c1d7e5b4a60c1d7e5b4',
    }),
    loanId: z.string(),
    loanStatus: z.enum(loanStatuses),
    amount: z.string(),
    currency: z.string(),
    loanAmount: z.string(),
    investedOn: z.string().nullable(),
    repaid: z.string().openapi({ description: 'Your part of the loan’s repayments so far' }),
    shares: z
      .array(shareSchema)
      .optional()
      .openapi({ description: 'Your part of each repayment (one investment)' }),
  })
  .openapi('Investment');

export const idParams = z.object({
  id: z
    .string()
    .max(60)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'bid_3f2a9c1d7e5b4a60c1d7e5b4' }),
});

const conflict = (description: string) => ({
  description,
  content: { 'application/json': { schema: errorBodySchema } },
});

/** The errors of a bid's change: 404 (not yours), 409 (not open, over-funded, closed). */
export const bidErrorResponses = {
  ...lendingErrorResponses,
  404: conflict('`not_found`: no such loan, or no such bid of yours'),
  409: conflict(
    '`loan_not_open_for_funding`, `funding_exceeds_amount` (the bids would fund more than the loan’s amount), or `bid_closed` (withdrawn or invested)',
  ),
} as const;
