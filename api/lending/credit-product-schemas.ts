import { z } from '@hono/zod-openapi';
import { decimalAmount } from '../../domain/decimal-amount.ts';
import { AMORTISATION_METHODS, type CreditProduct } from '../../domain/lending/credit-products.ts';

/**
 * Credit products, loan terms and schedules as the API shows them (the use cases:
 * application/lending/credit-products.ts).
 */

const decimal = (description: string, example: string) => z.string().openapi({ description, example });

const productFields = {
  name: z.string().openapi({ description: 'The Name: what a loan is issued under', example: 'Personal 12' }),
  description: z.string().optional().openapi({ example: 'Unsecured personal loan, 3 to 36 months' }),
  currency: z.string().openapi({ description: 'ISO 4217', example: 'EUR' }),
  secured: z.boolean().openapi({ description: 'A secured loan goes to Collateral when processed' }),
  states: z
    .array(z.string())
    .openapi({ description: 'States it is offered in; empty: every state', example: ['CA'] }),
  amount: z
    .object({ min: decimal('Smallest amount', '500.00'), max: decimal('Largest amount', '20000.00') })
    .openapi({ description: 'Loan amount bounds, inclusive' }),
  term: z
    .object({ min: z.number().int().openapi({ example: 3 }), max: z.number().int().openapi({ example: 36 }) })
    .openapi({ description: 'Term bounds in months (one instalment a month), inclusive' }),
  annualInterestRate: decimal('Nominal annual interest rate, percent; a twelfth of it a month', '12.5'),
  amortisation: z.enum(AMORTISATION_METHODS).openapi({
    description: '`equal_instalments` (annuity: equal principal + interest) or `equal_principal`',
  }),
  fees: z
    .object({
      originationPercent: decimal('Percent of the amount, due with the first instalment', '1.5'),
      originationFixed: decimal('Fixed amount, due with the first instalment', '20.00'),
      monthly: decimal('Due with every instalment', '2.00'),
    })
    .openapi({ description: 'Fees; never financed (no interest on them)' }),
  firstDueDate: z
    .object({
      rule: z.enum(['one_month_after_start', 'day_of_month']),
      day: z.number().int().optional().openapi({ description: 'day_of_month: 1-31 (31 = last day)' }),
      minimumDays: z.number().int().optional().openapi({ description: 'day_of_month: days after the start' }),
    })
    .openapi({ description: 'When the first instalment falls due; the others follow monthly' }),
  requiredDocuments: z
    .array(
      z.object({
        groupId: z.string().openapi({ example: 'id-card' }),
        name: z.string().openapi({ example: 'ID card' }),
        description: z.string().optional().openapi({ example: 'Both sides of a valid identity card' }),
      }),
    )
    .optional()
    .openapi({
      description: 'Document groups (UserDocuments) each needing a file before a loan is approved',
    }),
};

/** A product as a customer sees it (Customer/CreditProducts): without its promo codes. */
export const customerCreditProductSchema = z.object(productFields).openapi('LendingCreditProduct');

/** A product as management and the operator see it: with its promo codes and their discount. */
export const creditProductRecordSchema = z
  .object({
    ...productFields,
    promoCodes: z
      .array(z.string())
      .openapi({ description: 'Codes standing in for the Name', example: ['SPRING-26'] }),
    promoRateDiscount: decimal('Percentage points off the rate under a promo code', '2.5'),
  })
  .openapi('LendingCreditProductForManagement');

export const forManagement = (product: CreditProduct): z.infer<typeof creditProductRecordSchema> => product;

// --- Loan terms (Calculate, Loans/Create) ----------------------------------------------------------

/** The terms a customer asks a schedule (or a loan) for. */
export const loanTermsBodySchema = z
  .object({
    productName: z.string().trim().min(1).max(100).openapi({
      description: 'The credit product’s Name, or a promo code standing in for it',
      example: 'Personal 12',
    }),
    amount: decimalAmount({ decimals: 6, example: '1500.00' }).openapi({
      description: 'In the product’s currency',
      example: '5000.00',
    }),
    term: z
      .number()
      .int()
      .min(1)
      .max(600)
      .openapi({ description: 'Number of monthly instalments', example: 12 }),
    startDate: z.iso.date().optional().openapi({
      description: 'When the loan starts (YYYY-MM-DD); today (UTC) when left out',
      example: '2026-03-10',
    }),
  })
  .openapi('LendingLoanTerms');

const instalmentSchema = z.object({
  number: z.number().int().openapi({ example: 1 }),
  dueDate: z.string().openapi({ example: '2026-04-10' }),
  principal: decimal('Principal repaid', '393.36'),
  interest: decimal('Interest: balance × annual rate / 12, rounded half-up to the minor unit', '50.00'),
  fee: decimal('Fees due with this instalment', '2.00'),
  total: decimal('principal + interest + fee', '445.36'),
  remainingBalance: decimal('Principal owed after this instalment', '4606.64'),
});

export const scheduleSchema = z
  .object({
    productName: z.string().openapi({ example: 'Personal 12' }),
    currency: z.string().openapi({ example: 'EUR' }),
    amortisation: z.enum(AMORTISATION_METHODS),
    amount: decimal('The loan amount', '5000.00'),
    term: z.number().int().openapi({ example: 12 }),
    startDate: z.string().openapi({ example: '2026-03-10' }),
    promoCode: z.string().optional().openapi({ description: 'The promo code applied', example: 'SPRING-26' }),
    annualInterestRate: decimal('The rate applied (less a promo discount)', '12'),
    instalments: z.array(instalmentSchema),
    totals: z.object({
      principal: decimal('Sum of principal parts: the amount', '5000.00'),
      interest: decimal('Sum of interest', '330.93'),
      fees: decimal('Sum of fees', '24.00'),
      payable: decimal('Everything due', '5354.93'),
    }),
    apr: decimal('Annual percentage rate: 12 × the monthly internal rate of return, 2 decimals', '13.02'),
  })
  .openapi('LendingLoanSchedule');
