import { randomUUID } from 'node:crypto';
import { z } from '@hono/zod-openapi';
import { and, asc, eq, sql } from 'drizzle-orm';
import { Refusal } from '../../application/shared/refusal.ts';
import type { Database } from '../../db/client.ts';
import { lendingTenants } from '../../db/schema/lending.ts';
import { lendingCreditProducts, lendingPromoCodes } from '../../db/schema/lending-products.ts';
import {
  AMORTISATION_METHODS,
  type CreditProduct,
  normalisePromoCode,
  offeredInState,
  promoCodeOf,
} from '../../domain/lending/credit-products.ts';
import { calculateSchedule, LoanTermsRefused, type Schedule } from '../../domain/lending/schedule.ts';

/**
 * Credit products as the lending operations see them (decision 0038): found by Name or promo code,
 * listed per state, written by the operator (api/admin/lending-credit-products.ts, `npm run admin --
 * lending:credit-product`), and the loan terms a customer sends to Calculate (and Loans/Create).
 */

/** The tenant's product named `nameOrPromoCode`: by its Name first, else by one of its promo codes. */
export async function findCreditProduct(
  db: Database,
  tenantId: string,
  nameOrPromoCode: string,
): Promise<CreditProduct | undefined> {
  const text = nameOrPromoCode.trim();
  if (!text) return undefined;
  const [named] = await db
    .select({ definition: lendingCreditProducts.definition })
    .from(lendingCreditProducts)
    .where(and(eq(lendingCreditProducts.tenantId, tenantId), eq(lendingCreditProducts.name, text)))
    .limit(1);
  if (named) return named.definition;
  const [promoted] = await db
    .select({ definition: lendingCreditProducts.definition })
    .from(lendingPromoCodes)
    .innerJoin(lendingCreditProducts, eq(lendingCreditProducts.id, lendingPromoCodes.productId))
    .where(
      and(eq(lendingPromoCodes.tenantId, tenantId), eq(lendingPromoCodes.code, normalisePromoCode(text))),
    )
    .limit(1);
  return promoted?.definition;
}

/** The tenant's products offered in `state` (all of them without a state), by Name. */
export async function listCreditProducts(
  db: Database,
  tenantId: string,
  state?: string | undefined,
): Promise<CreditProduct[]> {
  const rows = await db
    .select({ definition: lendingCreditProducts.definition })
    .from(lendingCreditProducts)
    .where(eq(lendingCreditProducts.tenantId, tenantId))
    .orderBy(asc(lendingCreditProducts.name));
  return rows.map((row) => row.definition).filter((product) => offeredInState(product, state));
}

/** A product the operator cannot save as written; `field` names the offending field. */
export class CreditProductConflict extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'CreditProductConflict';
  }
}

/**
 * Creates or replaces the tenant's product of that Name with its promo codes. A promo code belongs to
 * one product of the tenant, and names and promo codes never collide (the Name would win the lookup
 * and hide the code): CreditProductConflict. Undefined when the tenant does not exist.
 */
export async function saveCreditProduct(
  db: Database,
  tenantId: string,
  product: CreditProduct,
): Promise<{ product: CreditProduct; created: boolean } | undefined> {
  return db.transaction(async (tx) => {
    // Product writes of a tenant take turns, so the collision checks below cannot race.
    const [tenant] = await tx
      .select({ id: lendingTenants.id })
      .from(lendingTenants)
      .where(eq(lendingTenants.id, tenantId))
      .for('update');
    if (!tenant) return undefined;
    const [existing] = await tx
      .select({ id: lendingCreditProducts.id })
      .from(lendingCreditProducts)
      .where(and(eq(lendingCreditProducts.tenantId, tenantId), eq(lendingCreditProducts.name, product.name)))
      .limit(1);
    const id = existing?.id ?? randomUUID();

    const others = await tx
      .select({ id: lendingCreditProducts.id, name: lendingCreditProducts.name })
      .from(lendingCreditProducts)
      .where(eq(lendingCreditProducts.tenantId, tenantId));
    const nameOfOther = new Map(
      others
        .filter((other) => other.id !== id)
        .map((other) => [normalisePromoCode(other.name), other.name] as const),
    );
    const codes = await tx
      .select({ code: lendingPromoCodes.code, productId: lendingPromoCodes.productId })
      .from(lendingPromoCodes)
      .where(eq(lendingPromoCodes.tenantId, tenantId));
    const codeOwners = new Map(codes.map((code) => [code.code, code.productId] as const));
    const ownName = normalisePromoCode(product.name);
    if ([...codeOwners].some(([code, owner]) => code === ownName && owner !== id)) {
      throw new CreditProductConflict('name', `${product.name} is a promo code of another credit product`);
    }
    for (const [index, code] of product.promoCodes.entries()) {
      const owner = codeOwners.get(code);
      if (owner !== undefined && owner !== id) {
        throw new CreditProductConflict(
          `promoCodes.${index}`,
          `${code} is a promo code of another credit product`,
        );
      }
      const other = nameOfOther.get(code);
      if (other !== undefined) {
        throw new CreditProductConflict(
          `promoCodes.${index}`,
          `${code} is the Name of credit product ${other}`,
        );
      }
    }

    if (existing) {
      await tx
        .update(lendingCreditProducts)
        .set({ definition: product, updatedAt: sql`now()` })
        .where(eq(lendingCreditProducts.id, id));
      await tx.delete(lendingPromoCodes).where(eq(lendingPromoCodes.productId, id));
    } else {
      await tx
        .insert(lendingCreditProducts)
        .values({ id, tenantId, name: product.name, definition: product });
    }
    if (product.promoCodes.length > 0) {
      await tx
        .insert(lendingPromoCodes)
        .values(product.promoCodes.map((code) => ({ tenantId, code, productId: id })));
    }
    return { product, created: !existing };
  });
}

// --- What the API shows ----------------------------------------------------------------------------

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

type CustomerCreditProduct = z.infer<typeof customerCreditProductSchema>;

export function forCustomer(product: CreditProduct): CustomerCreditProduct {
  const { promoCodes: _codes, promoRateDiscount: _discount, ...shown } = product;
  return shown;
}

export const forManagement = (product: CreditProduct): z.infer<typeof creditProductRecordSchema> => product;

// --- Loan terms (Calculate, Loans/Create) ----------------------------------------------------------

/** The terms a customer asks a schedule (or a loan) for. */
export const loanTermsBodySchema = z
  .object({
    productName: z.string().trim().min(1).max(100).openapi({
      description: 'The credit product’s Name, or a promo code standing in for it',
      example: 'Personal 12',
    }),
    amount: z
      .string()
      .trim()
      .regex(/^\d{1,15}(\.\d+)?$/, 'must be a positive decimal amount like 1500.00')
      .openapi({ description: 'In the product’s currency', example: '5000.00' }),
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
export type LoanTermsBody = z.infer<typeof loanTermsBodySchema>;

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

/** Today's date in UTC (YYYY-MM-DD): the start of a loan whose terms name none. */
export const todayUtc = (now = new Date()) => now.toISOString().slice(0, 10);

/**
 * The product `terms.productName` names and the loan's schedule under the terms, or a 400 naming the
 * field: `productName` when the tenant has no product or promo code of that name, `amount`, `term`,
 * `startDate` when the product refuses them (bounds in the message).
 */
export async function calculateLoan(
  db: Database,
  tenantId: string,
  terms: LoanTermsBody,
  today = todayUtc(),
): Promise<{ product: CreditProduct; promoCode: string | undefined; schedule: Schedule }> {
  const product = await findCreditProduct(db, tenantId, terms.productName);
  if (!product) {
    throw Refusal.field('productName', `no credit product or promo code named "${terms.productName}"`);
  }
  const promoCode = promoCodeOf(product, terms.productName);
  try {
    const schedule = calculateSchedule(product, {
      amount: terms.amount,
      term: terms.term,
      startDate: terms.startDate ?? today,
      promoCode,
    });
    return { product, promoCode, schedule };
  } catch (error) {
    if (error instanceof LoanTermsRefused) throw Refusal.validation(error.problems);
    throw error;
  }
}
