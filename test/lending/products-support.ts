import { lending } from '../../application/lending/index.ts';
import { SANDBOX_CREDIT_PRODUCT } from '../../cmd/sandbox-parties.ts';
import {
  type CreditProduct,
  type CreditProductInput,
  creditProductSchema,
} from '../../domain/lending/credit-products.ts';
import { calculateSchedule } from '../../domain/lending/schedule.ts';
import { addDays } from '../../domain/lending/servicing.ts';
import type { TestPlatform } from '../support/platform.ts';

/** A plain product for tests: EUR 500-20000 over 3-36 months at 12 %, annuity, no fees (the sandbox lender's). */
export const TEST_CREDIT_PRODUCT: CreditProductInput = SANDBOX_CREDIT_PRODUCT;

/**
 * Creates (or replaces) a credit product of the tenant, as the operator does (admin endpoint and
 * command share saveCreditProduct); `overrides` replace fields of TEST_CREDIT_PRODUCT.
 */
export async function createCreditProduct(
  platform: TestPlatform,
  tenantId: string,
  overrides: Partial<CreditProductInput> = {},
): Promise<CreditProduct> {
  const product = creditProductSchema.parse({ ...TEST_CREDIT_PRODUCT, ...overrides });
  const saved = await lending.saveCreditProduct(platform, { tenantId, product });
  if (!saved) throw new Error(`no lending tenant ${tenantId}`);
  return saved.product;
}

/**
 * A start (disbursement) date from which a loan of `terms` under TEST_CREDIT_PRODUCT has its first
 * instalment due on `firstDueDate`: a loan paid out then is due now, while one paid out today is not due
 * before a month (the first due date is never the start day: domain/lending/schedule.ts `dueDates`).
 */
export function startDateForFirstDueDate(
  firstDueDate: string,
  terms: { amount: string; term: number },
): string {
  const product = creditProductSchema.parse(TEST_CREDIT_PRODUCT);
  for (let back = 26; back <= 33; back++) {
    const startDate = addDays(firstDueDate, -back);
    const schedule = calculateSchedule(product, { ...terms, startDate });
    if (schedule.instalments[0]?.dueDate === firstDueDate) return startDate;
  }
  throw new Error(`no start date makes ${firstDueDate} the first due date`);
}
