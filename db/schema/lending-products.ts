import { index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { CreditProduct } from '../../domain/lending/credit-products.ts';
import { lendingTenants } from './lending.ts';

/**
 * A tenant's credit products (decision 0038), written by the platform operator (admin endpoint and
 * command) and read by Customer/CreditProducts, Management/CreditProducts, Customer/PromoCode/Check,
 * Customer/Loans/Calculate and the loan operations (application/lending/credit-products.ts).
 */
export const lendingCreditProducts = pgTable(
  'lending_credit_products',
  {
    id: text('id').primaryKey(),
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    /** The spec's Name: what loans are issued under, unique per tenant. */
    name: text('name').notNull(),
    /** The whole product as validated by creditProductSchema (domain/lending/credit-products.ts). */
    definition: jsonb('definition').$type<CreditProduct>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('lending_credit_products_name_idx').on(table.tenantId, table.name)],
);

/**
 * Promo codes (upper case) that stand in for a product's Name: one product per code and tenant, so a
 * code always names one product. Rewritten with the product.
 */
export const lendingPromoCodes = pgTable(
  'lending_promo_codes',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    code: text('code').notNull(),
    productId: text('product_id')
      .notNull()
      .references(() => lendingCreditProducts.id, { onDelete: 'cascade' }),
  },
  (table) => [
    primaryKey({ columns: [table.tenantId, table.code] }),
    index('lending_promo_codes_product_idx').on(table.productId),
  ],
);
