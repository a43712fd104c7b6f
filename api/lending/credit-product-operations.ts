import type { Operation } from '../shared/operation.ts';
import type { LendingEnv } from './context.ts';
import { customerCreditProductsOperation } from './customer/credit-products.ts';
import { customerLoansCalculateOperation } from './customer/loans-calculate.ts';
import { customerPromoCodeCheckOperation } from './customer/promo-code-check.ts';
import { managementCreditProductsOperation } from './management/credit-products.ts';

/** Credit products and calculation (Customer/CreditProducts, Customer/PromoCode/Check, Customer/Loans/Calculate, Management/CreditProducts). */
export const creditProductOperations: readonly Operation<LendingEnv>[] = [
  customerCreditProductsOperation,
  customerPromoCodeCheckOperation,
  customerLoansCalculateOperation,
  managementCreditProductsOperation,
];
