import {
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { loanStatuses } from '../../domain/lending/loan-lifecycle.ts';
import type {
  LoanCoApplicant,
  LoanCollateral,
  LoanDecision,
  LoanDisbursement,
  LoanOffer,
} from '../../domain/lending/loan-process.ts';
import { lendingCustomers, lendingTenants } from './lending.ts';

/**
 * Read model of loans, one row per loan of a tenant, written only by the loan workflow's activities
 * (activities/lending/loan.ts) as the loan moves; the API's GETs read it. `version` grows with every
 * change, so a late or retried write of an older state changes nothing.
 */
export const lendingLoans = pgTable(
  'lending_loans',
  {
    tenantId: text('tenant_id')
      .notNull()
      .references(() => lendingTenants.id),
    /** Numeric, unique per tenant (the workflow id is `lending-loan-<tenantId>-<loanId>`). */
    loanId: text('loan_id').notNull(),
    customerId: text('customer_id')
      .notNull()
      .references(() => lendingCustomers.id),
    productName: text('product_name').notNull(),
    /** The promo code applied for instead of the Name, if any. */
    promoCode: text('promo_code'),
    currency: text('currency').notNull(),
    /** Exact decimals in the currency's minor-unit digits (kept as written: `1500.00`). */
    amount: numeric('amount').notNull(),
    term: integer('term').notNull(),
    secured: boolean('secured').notNull(),
    status: text('status', { enum: loanStatuses }).notNull(),
    offers: jsonb('offers').$type<LoanOffer[]>().notNull().default([]),
    acceptedOfferId: text('accepted_offer_id'),
    multipleOffers: boolean('multiple_offers').notNull().default(false),
    collaterals: jsonb('collaterals').$type<LoanCollateral[]>().notNull().default([]),
    coApplicant: jsonb('co_applicant').$type<LoanCoApplicant>(),
    rolloverRequested: boolean('rollover_requested').notNull().default(false),
    autocharge: boolean('autocharge').notNull().default(false),
    autochargeComment: text('autocharge_comment'),
    decision: jsonb('decision').$type<LoanDecision>(),
    disbursement: jsonb('disbursement').$type<LoanDisbursement>(),
    version: integer('version').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.tenantId, table.loanId] }),
    index('lending_loans_customer_idx').on(table.tenantId, table.customerId, table.status),
  ],
);

/** Every status a loan went through: who moved it, when, and why. */
export const lendingLoanStatusHistory = pgTable(
  'lending_loan_status_history',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    tenantId: text('tenant_id').notNull(),
    loanId: text('loan_id').notNull(),
    /** The loan's version this entry was recorded with: a retried write records it once. */
    version: integer('version').notNull(),
    status: text('status', { enum: loanStatuses }).notNull(),
    at: timestamp('at', { withTimezone: true }).notNull(),
    actorRole: text('actor_role', { enum: ['customer', 'management', 'system'] }).notNull(),
    actorId: text('actor_id'),
    comments: text('comments'),
    reasonId: text('reason_id'),
  },
  (table) => [
    uniqueIndex('lending_loan_status_history_version_idx').on(table.tenantId, table.loanId, table.version),
  ],
);
