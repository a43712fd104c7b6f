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
import type { SubmissionChannel, SubmissionStatus } from '../../domain/lending/repayment-submissions.ts';
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

/**
 * Repayments submitted through the collection gateway and auto-charges (decision 0045), written by the
 * loan workflow's recordLoan activity with the loan's version (the newest kept). The notification
 * receiver finds a submission's loan here by its INVOICE (`LR-<submissionId>`).
 */
export const lendingRepaymentSubmissions = pgTable(
  'lending_repayment_submissions',
  {
    tenantId: text('tenant_id').notNull(),
    /** `sub_<16 hex>`, unique per tenant. */
    submissionId: text('submission_id').notNull(),
    loanId: text('loan_id').notNull(),
    invoice: text('invoice').notNull(),
    channel: text('channel').$type<SubmissionChannel>().notNull(),
    amount: numeric('amount').notNull(),
    currency: text('currency').notNull(),
    status: text('status').$type<SubmissionStatus>().notNull(),
    paymentMethodId: text('payment_method_id'),
    idn: text('idn'),
    iban: text('iban'),
    beneficiary: text('beneficiary'),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    reason: text('reason'),
    repaymentId: text('repayment_id'),
    version: integer('version').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.tenantId, table.submissionId] }),
    index('lending_repayment_submissions_loan_idx').on(table.tenantId, table.loanId),
  ],
);
