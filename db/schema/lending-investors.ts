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
import type { BidStatus } from '../../domain/lending/bids.ts';
import type { InvestorDetails, InvestorPreferences } from '../../domain/lending/investors.ts';
import { lendingTenants, lendingUsers } from './lending.ts';

/**
 * Investors and their bids (decision 0052). An investor is a lending user with the investor role; its
 * personal details and preferences are written by the API's use cases. Bids and the shares of the
 * repayments are the loan workflow's (its recordLoan activity writes them with the loan's version:
 * the newest kept).
 */
export const lendingInvestors = pgTable('lending_investors', {
  userId: text('user_id')
    .primaryKey()
    .references(() => lendingUsers.id),
  tenantId: text('tenant_id')
    .notNull()
    .references(() => lendingTenants.id),
  details: jsonb('details').$type<InvestorDetails>().notNull(),
  preferences: jsonb('preferences').$type<InvestorPreferences>().notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
});

/** Bids on loans open for funding; an `invested` bid is an investment of the loan it funded. */
export const lendingInvestorBids = pgTable(
  'lending_investor_bids',
  {
    tenantId: text('tenant_id').notNull(),
    bidId: text('bid_id').notNull(),
    loanId: text('loan_id').notNull(),
    investorId: text('investor_id').notNull(),
    amount: numeric('amount').notNull(),
    status: text('status').$type<BidStatus>().notNull(),
    placedAt: timestamp('placed_at', { withTimezone: true }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull(),
    /** The disbursement date, once the bid is an investment. */
    investedOn: date('invested_on', { mode: 'string' }),
    version: integer('version').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.tenantId, table.bidId] }),
    index('lending_investor_bids_investor_idx').on(table.tenantId, table.investorId),
    index('lending_investor_bids_loan_idx').on(table.tenantId, table.loanId),
  ],
);

/** Each investment's part of each repayment of its loan (pro rata, whole cents: domain/lending/bids.ts). */
export const lendingInvestmentShares = pgTable(
  'lending_investment_shares',
  {
    tenantId: text('tenant_id').notNull(),
    bidId: text('bid_id').notNull(),
    repaymentId: text('repayment_id').notNull(),
    loanId: text('loan_id').notNull(),
    /** The repayment's whole amount, and this investment's part of it. */
    repaymentAmount: numeric('repayment_amount').notNull(),
    amount: numeric('amount').notNull(),
    date: date('date', { mode: 'string' }).notNull(),
    reversed: boolean('reversed').notNull(),
    version: integer('version').notNull(),
  },
  (table) => [primaryKey({ columns: [table.tenantId, table.bidId, table.repaymentId] })],
);
