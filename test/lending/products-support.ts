import { saveCreditProduct } from '../../api/lending/credit-product-records.ts';
import {
  type CreditProduct,
  type CreditProductInput,
  creditProductSchema,
} from '../../domain/lending/credit-products.ts';
import type { TestPlatform } from '../support/platform.ts';

/** A plain product for tests: EUR 500-20000 over 3-36 months at 12 %, annuity, no fees. */
export const TEST_CREDIT_PRODUCT: CreditProductInput = {
  name: 'Personal 12',
  currency: 'EUR',
  secured: false,
  amount: { min: '500.00', max: '20000.00' },
  term: { min: 3, max: 36 },
  annualInterestRate: '12',
  amortisation: 'equal_instalments',
};

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
  const saved = await saveCreditProduct(platform.db, tenantId, product);
  if (!saved) throw new Error(`no lending tenant ${tenantId}`);
  return saved.product;
}
