import {
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';
import type { CoApplicantSettings, VendorSettings } from '../../domain/lending/reference-data.ts';
import { lendingTenants } from './lending.ts';

/**
 * A lending tenant's reference data (domain/lending/reference-data.ts): dictionaries, application
 * settings, vendors and their stores, written by the operator (application/lending/reference-data.ts);
 * and the vendor and store a loan was sold at, written by the loan's Create use case.
 */

/** A tenant's dictionaries by name; `parent` names the dictionary the values' `parent_code` points into. */
export const lendingDictionaries = pgTable(
  'lending_dictionaries',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    name: text('name').notNull(),
    parent: text('parent'),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.tenantId, table.name] })],
);

/** The values of a dictionary, in the operator's order (`position`). */
export const lendingDictionaryValues = pgTable(
  'lending_dictionary_values',
  {
    tenantId: text('tenant_id').notNull(),
    dictionary: text('dictionary').notNull(),
    code: text('code').notNull(),
    name: text('name').notNull(),
    parentCode: text('parent_code'),
    position: integer('position').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.tenantId, table.dictionary, table.code] }),
    index('lending_dictionary_values_parent_idx').on(table.tenantId, table.dictionary, table.parentCode),
  ],
);

/** A tenant's application settings; no row (or a null column) means the defaults. */
export const lendingApplicationSettings = pgTable('lending_application_settings', {
  tenantId: text('tenant_id')
    .primaryKey()
    .references(() => lendingTenants.id),
  coApplicant: jsonb('co_applicant').$type<CoApplicantSettings>(),
  vendors: jsonb('vendors').$type<VendorSettings>(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** Vendors (points of sale) a tenant's loans are sold at. */
export const lendingVendors = pgTable(
  'lending_vendors',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    vendorId: text('vendor_id').notNull(),
    name: text('name').notNull(),
    active: boolean('active').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.tenantId, table.vendorId] })],
);

/** A vendor's stores; a store id is unique in its tenant. */
export const lendingStores = pgTable(
  'lending_stores',
  {
    tenantId: text('tenant_id').notNull(),
    storeId: text('store_id').notNull(),
    vendorId: text('vendor_id').notNull(),
    name: text('name').notNull(),
    address: text('address').notNull(),
    city: text('city'),
    latitude: doublePrecision('latitude').notNull(),
    longitude: doublePrecision('longitude').notNull(),
    active: boolean('active').notNull(),
    position: integer('position').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.tenantId, table.storeId] }),
    index('lending_stores_vendor_idx').on(table.tenantId, table.vendorId),
  ],
);

/**
 * The vendor (and store) a loan was sold at, as they were named then: written once by the loan's Create
 * use case beside the loan's workflow (which never sees it), read with the loan.
 */
export const lendingLoanPointsOfSale = pgTable(
  'lending_loan_points_of_sale',
  {
    tenantId: text('tenant_id').notNull(),
    loanId: text('loan_id').notNull(),
    vendorId: text('vendor_id').notNull(),
    vendorName: text('vendor_name').notNull(),
    storeId: text('store_id'),
    storeName: text('store_name'),
  },
  (table) => [primaryKey({ columns: [table.tenantId, table.loanId] })],
);
