import { pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { lendingTenants } from './lending.ts';

/**
 * A lending tenant as a merchant of the payment-collection gateway (decision 0041): its MIN and secret,
 * configured by the platform operator. The secret keys the CHECKSUM of every packet lending sends and
 * of every notification it receives, so it is kept usable: encrypted (AES-256-GCM under
 * LENDING_DATA_KEY, bound to the tenant; credentials/lending/collect-merchants.ts), never hashed.
 */
export const lendingCollectMerchants = pgTable(
  'lending_collect_merchants',
  {
    tenantId: text('tenant_id')
      .primaryKey()
      .references(() => lendingTenants.id),
    min: text('min').notNull(),
    secretSealed: text('secret_sealed').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [uniqueIndex('lending_collect_merchants_min_idx').on(table.min)],
);
