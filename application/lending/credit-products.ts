import { randomUUID } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { lendingTenants } from '../../db/schema/lending.ts';
import { lendingCreditProducts, lendingPromoCodes } from '../../db/schema/lending-products.ts';
import {
  type CreditProduct,
  normalisePromoCode,
  offeredInState,
  promoCodeOf,
} from '../../domain/lending/credit-products.ts';
import {
  calculateSchedule,
  LoanTermsRefused,
  type Schedule,
  startDateProblem,
} from '../../domain/lending/schedule.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';

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
  { db }: Pick<UseCaseDeps, 'db'>,
  { tenantId, state }: { tenantId: string; state?: string | undefined },
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
  { db }: Pick<UseCaseDeps, 'db'>,
  { tenantId, product }: { tenantId: string; product: CreditProduct },
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

/**
 * The operator's PUT of a product (api/admin/lending-credit-products.ts): created or replaced; 404 for an
 * unknown tenant, 409 `credit_product_conflict` naming the field whose promo code or Name is taken.
 */
export async function putCreditProduct(
  deps: Pick<UseCaseDeps, 'db'>,
  input: { tenantId: string; product: CreditProduct },
): Promise<{ product: CreditProduct; created: boolean }> {
  try {
    const saved = await saveCreditProduct(deps, input);
    if (!saved) throw Refusal.notFound('Lending tenant');
    return saved;
  } catch (error) {
    if (error instanceof CreditProductConflict) {
      throw new Refusal(409, 'credit_product_conflict', error.message, [
        { field: error.field, message: error.message },
      ]);
    }
    throw error;
  }
}

/**
 * Customer/PromoCode/Check: whether `promoCode` is a promo code of a product offered in `state` (a
 * product's Name is not a promo code, even though Calculate accepts both).
 */
export async function checkPromoCode(
  deps: Pick<UseCaseDeps, 'db'>,
  { tenantId, ...input }: { tenantId: string; promoCode: string; state?: string | undefined },
): Promise<
  { exists: false } | { exists: true; promoCode: string; productName: string; promoRateDiscount: string }
> {
  const product = await findCreditProduct(deps.db, tenantId, input.promoCode);
  const code = product ? promoCodeOf(product, input.promoCode) : undefined;
  if (!product || code === undefined || !offeredInState(product, input.state)) return { exists: false };
  return {
    exists: true,
    promoCode: code,
    productName: product.name,
    promoRateDiscount: product.promoRateDiscount,
  };
}

// --- What the API shows ----------------------------------------------------------------------------

/** A product as a customer sees it (Customer/CreditProducts): without its promo codes. */
export type CustomerCreditProduct = Omit<CreditProduct, 'promoCodes' | 'promoRateDiscount'>;

function forCustomer(product: CreditProduct): CustomerCreditProduct {
  const { promoCodes: _codes, promoRateDiscount: _discount, ...shown } = product;
  return shown;
}

/** Customer/CreditProducts: the products a customer may choose (in `state`), without their promo codes. */
export async function listCustomerCreditProducts(
  deps: Pick<UseCaseDeps, 'db'>,
  input: { tenantId: string; state?: string | undefined },
): Promise<CustomerCreditProduct[]> {
  return (await listCreditProducts(deps, input)).map(forCustomer);
}

/** The terms a customer asks a schedule (or a loan) for (api/lending/credit-product-schemas.ts). */
export interface LoanTerms {
  /** The credit product's Name, or a promo code standing in for it. */
  productName: string;
  amount: string;
  term: number;
  /** YYYY-MM-DD; today (UTC) when left out. */
  startDate?: string | undefined;
}

/** Today's date in UTC (YYYY-MM-DD): the start of a loan whose terms name none. */
export const todayUtc = (now = new Date()) => now.toISOString().slice(0, 10);

/**
 * The product `terms.productName` names and the loan's schedule under the terms, or a 400 naming the
 * field: `productName` when the tenant has no product or promo code of that name, `amount`, `term`,
 * `startDate` when the product refuses them (bounds in the message).
 */
export async function calculateLoan(
  { db }: Pick<UseCaseDeps, 'db'>,
  { tenantId, terms, today = todayUtc() }: { tenantId: string; terms: LoanTerms; today?: string | undefined },
): Promise<{ product: CreditProduct; promoCode: string | undefined; schedule: Schedule }> {
  const product = await findCreditProduct(db, tenantId, terms.productName);
  if (!product) {
    throw Refusal.field('productName', `no credit product or promo code named "${terms.productName}"`);
  }
  const promoCode = promoCodeOf(product, terms.productName);
  const startDate = terms.startDate ?? today;
  const tooLate = startDateProblem(startDate, today);
  if (tooLate) throw Refusal.field('startDate', tooLate);
  try {
    const schedule = calculateSchedule(product, {
      amount: terms.amount,
      term: terms.term,
      startDate,
      promoCode,
    });
    return { product, promoCode, schedule };
  } catch (error) {
    if (error instanceof LoanTermsRefused) throw Refusal.validation(error.problems);
    throw error;
  }
}
