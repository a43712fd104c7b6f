import {
  boolean,
  date,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';
import type { LoanServicing } from '../../domain/lending/servicing.ts';
import { repaymentModes } from '../../domain/lending/servicing.ts';

/**
 * Read model of loan servicing (decision 0043), written only by the loan workflow's recordLoan activity
 * with the loan's version: the schedule, repayments and position of a paid-out loan, and one row per
 * repayment so that Management/Loans/Repayments/{id} finds its loan.
 */
export const lendingLoanServicing = pgTable(
  'lending_loan_servicing',
  {
    tenantId: text('tenant_id').notNull(),
    loanId: text('loan_id').notNull(),
    /** The loan's version this servicing was recorded with: the highest is kept. */
    version: integer('version').notNull(),
    servicing: jsonb('servicing').$type<LoanServicing>().notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.tenantId, table.loanId] })],
);

export const lendingLoanRepayments = pgTable(
  'lending_loan_repayments',
  {
    tenantId: text('tenant_id').notNull(),
    /** Unique per tenant (the API's id). */
    repaymentId: text('repayment_id').notNull(),
    loanId: text('loan_id').notNull(),
    amount: numeric('amount').notNull(),
    date: date('date', { mode: 'string' }).notNull(),
    mode: text('mode', { enum: repaymentModes }).notNull(),
    reference: text('reference'),
    reversed: boolean('reversed').notNull().default(false),
    version: integer('version').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.tenantId, table.repaymentId] }),
    index('lending_loan_repayments_loan_idx').on(table.tenantId, table.loanId),
  ],
);
