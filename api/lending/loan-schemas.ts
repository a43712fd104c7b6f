import { z } from '@hono/zod-openapi';
import { loanStatuses } from '../../domain/lending/loan-lifecycle.ts';
import { repaymentModes } from '../../domain/lending/servicing.ts';
import { errorBodySchema } from '../shared/errors.ts';
import { lendingErrorResponses } from './auth.ts';
import { pointOfSaleSchema } from './reference-data-schemas.ts';

/**
 * The loan as the API answers it (application/lending/loans.ts LoanView, loan-servicing.ts
 * ServicingView), its path parameter and its documented errors.
 */

const amount = z.string().openapi({ example: '128.50' });

export const repaymentSchema = z
  .object({
    id: z.string().openapi({ description: 'The repayment id (Management/Loans/Repayments/{id})' }),
    amount,
    date: z.string().openapi({ example: '2026-03-10' }),
    mode: z.enum(repaymentModes),
    reference: z.string().nullable(),
    reversed: z.boolean(),
    reversedAt: z
      .string()
      .nullable()
      .openapi({
        description:
          'When it was reversed: by management (DELETE), or because the bank took the transfer back (a repayment ' +
          'submitted by bank transfer, its reference the gateway INVOICE); null while in force (and for reversals ' +
          'recorded before this field)',
      }),
  })
  .openapi('Repayment');

export const servicingSchema = z
  .object({
    status: z.enum(['current', 'overdue', 'repaid']),
    daysPastDue: z
      .number()
      .int()
      .openapi({ description: 'Days since the oldest overdue due date (0 if none)' }),
    pastDueSince: z.string().nullable(),
    overdueAmount: amount,
    dueNow: amount.openapi({ description: 'Unpaid amount of every instalment due today or before' }),
    payoffAmount: amount.openapi({ description: 'Everything still owed' }),
    outstandingPrincipal: amount,
    paidTotal: amount,
    nextDueDate: z.string().nullable(),
    nextDueAmount: amount.nullable(),
    asOf: z.string().openapi({ description: 'When the loan last assessed its position' }),
    instalments: z.array(
      z.object({
        number: z.number().int(),
        dueDate: z.string(),
        principal: amount,
        interest: amount,
        fee: amount,
        total: amount,
        paid: amount,
        outstanding: amount,
        overdue: z.boolean(),
      }),
    ),
    repayments: z.array(repaymentSchema),
  })
  .openapi('LoanServicing');

const amountText = z.string().openapi({ example: '1500.00' });

export const loanOfferSchema = z
  .object({
    offerId: z.string().openapi({ example: '482913675-1' }),
    productName: z.string().openapi({ example: 'Personal loan' }),
    amount: amountText,
    term: z.number().int().openapi({ description: 'Monthly instalments', example: 12 }),
  })
  .openapi('LoanOffer');

export const collateralSchema = z
  .object({
    collateralId: z.string().openapi({ example: '1' }),
    kind: z.string().openapi({ example: 'vehicle' }),
    description: z.string().openapi({ example: 'Toyota Corolla 2019, VIN JTDBR32E...' }),
    value: amountText,
  })
  .openapi('Collateral');

export const coApplicantSchema = z
  .object({
    firstName: z.string().trim().min(1).max(100).openapi({ example: 'John' }),
    lastName: z.string().trim().min(1).max(100).openapi({ example: 'Doe' }),
    birthDate: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'a date YYYY-MM-DD')
      .optional()
      .openapi({ example: '1988-02-14' }),
    ssn: z.string().trim().min(4).max(20).optional().openapi({ example: '987-65-4321' }),
    email: z.email().max(254).optional().openapi({ example: 'john.doe@example.com' }),
    phone: z
      .string()
      .regex(/^\+[1-9]\d{6,14}$/, 'an international number, e.g. +12025550143')
      .optional(),
    relationship: z.string().trim().max(50).optional().openapi({ example: 'spouse' }),
  })
  .strict()
  .openapi('CoApplicant');

const statusChangeSchema = z.object({
  status: z.enum(loanStatuses),
  at: z.string(),
  by: z.enum(['customer', 'management', 'system']),
  comments: z.string().nullable(),
  reasonId: z.string().nullable(),
});

export const loanSchema = z
  .object({
    loanId: z.string().openapi({ example: '482913675' }),
    customerId: z.string(),
    status: z.enum(loanStatuses).openapi({
      description: 'See the transition table (docs/lending.md; decision 0039)',
      example: 'Origination',
    }),
    productName: z.string().openapi({ example: 'Personal loan' }),
    promoCode: z.string().nullable(),
    currency: z.string().openapi({ example: 'EUR' }),
    amount: amountText,
    term: z.number().int().openapi({ description: 'Monthly instalments', example: 12 }),
    secured: z.boolean(),
    offers: z
      .array(loanOfferSchema)
      .openapi({ description: 'The offers of the decision (Offer confirmation)' }),
    acceptedOfferId: z.string().nullable(),
    collaterals: z.array(collateralSchema),
    coApplicant: coApplicantSchema.nullable(),
    pointOfSale: pointOfSaleSchema.nullable(),
    rolloverRequested: z.boolean(),
    autocharge: z.object({ enabled: z.boolean(), comment: z.string().nullable() }),
    disbursement: z.object({ amount: amountText, date: z.string() }).nullable(),
    decision: z
      .object({
        outcome: z.enum(['approve', 'decline', 'refer', 'unavailable']),
        score: z.number().nullable(),
        reasons: z.array(z.string()),
        at: z.string(),
      })
      .nullable()
      .openapi({ description: 'The credit bureau’s decision (Management only; null for customers)' }),
    statusHistory: z.array(statusChangeSchema),
    servicing: servicingSchema.nullable().openapi({
      description: 'Schedule, repayments, balances and days past due once paid out (decision 0043)',
    }),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi('Loan');

export const loanIdParams = z.object({
  loanId: z
    .string()
    .max(40)
    .openapi({ param: { name: 'loanId', in: 'path' }, example: '482913675' }),
});

/** The documented errors of a loan operation: the platform's, and 409 for a loan in another status. */
export const loanErrorResponses = {
  ...lendingErrorResponses,
  409: {
    description:
      '`invalid_loan_status` (the message names the current status), or another refusal of the loan ' +
      '(`collateral_required`, `rollover_already_requested`, `rollover_not_requested`, `multiple_offers_disabled`, ' +
      '`decision_in_progress`)',
    content: { 'application/json': { schema: errorBodySchema } },
  },
} as const;

export const loanAnswer = (description: string) => ({
  200: { description, content: { 'application/json': { schema: loanSchema } } },
  ...loanErrorResponses,
});
