import type { lendingLoans } from '../../../db/schema/lending-loans.ts';
import type { LoanStatus } from '../../../domain/lending/loan-lifecycle.ts';
import type {
  LoanActor,
  LoanCoApplicant,
  LoanCollateral,
  LoanDecision,
  LoanDisbursement,
  LoanOffer,
} from '../../../domain/lending/loan-process.ts';
import type { LoanServicing as LoanServicingRecord } from '../../../domain/lending/servicing.ts';
import {
  daysPastDue,
  type LoanRepayment,
  type LoanServicing,
  type RepaymentMode,
} from '../../../domain/lending/servicing.ts';
import type { PointOfSale } from '../vendors.ts';

/**
 * The loan as the API answers it (api/lending/loan-schemas.ts describes it): its row, the parts of its view
 * read with it (status history, point of sale, servicing), and the servicing of a paid-out loan
 * (decision 0043: from the read model the loan workflow writes; days past due are counted to today).
 */

export type LoanRow = typeof lendingLoans.$inferSelect;

/** A loan as the API answers it (api/lending/loan-schemas.ts describes it). */
export interface LoanView {
  loanId: string;
  customerId: string;
  status: LoanStatus;
  productName: string;
  promoCode: string | null;
  currency: string;
  amount: string;
  term: number;
  secured: boolean;
  offers: LoanOffer[];
  acceptedOfferId: string | null;
  collaterals: LoanCollateral[];
  coApplicant: LoanCoApplicant | null;
  /** The vendor and store the loan was sold at (issue 21), as named when it was created. */
  pointOfSale: PointOfSale | null;
  rolloverRequested: boolean;
  autocharge: { enabled: boolean; comment: string | null };
  disbursement: LoanDisbursement | null;
  decision: {
    outcome: LoanDecision['outcome'];
    score: number | null;
    reasons: string[];
    at: string;
  } | null;
  statusHistory: {
    status: LoanStatus;
    at: string;
    by: 'customer' | 'management' | 'system';
    comments: string | null;
    reasonId: string | null;
  }[];
  servicing: ServicingView | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * What a loan's view adds to its row: its status history (by version), the point of sale it was created
 * with, and its servicing (written with the loan row that records the payout: none before it).
 */
export interface LoanViewParts {
  history: {
    status: LoanStatus;
    at: string;
    by: LoanActor['role'];
    comments: string | null;
    reasonId: string | null;
  }[];
  pointOfSale: PointOfSale | null;
  servicing: LoanServicingRecord | null;
}

/** A loan's row with the parts of its view, read together (`loanRecordOf`). */
export interface LoanRecord {
  row: LoanRow;
  parts: LoanViewParts;
}

/** The loan as the API answers it from its record; `audience` customer leaves the bureau's decision out. */
export function viewOfLoan({ row, parts }: LoanRecord, audience: 'customer' | 'management'): LoanView {
  return {
    loanId: row.loanId,
    customerId: row.customerId,
    status: row.status,
    productName: row.productName,
    promoCode: row.promoCode,
    currency: row.currency,
    amount: row.amount,
    term: row.term,
    secured: row.secured,
    offers: row.offers,
    acceptedOfferId: row.acceptedOfferId,
    collaterals: row.collaterals,
    coApplicant: row.coApplicant ?? null,
    pointOfSale: parts.pointOfSale,
    rolloverRequested: row.rolloverRequested,
    autocharge: { enabled: row.autocharge, comment: row.autochargeComment },
    disbursement: row.disbursement ?? null,
    decision:
      audience === 'management' && row.decision
        ? {
            outcome: row.decision.outcome,
            score: row.decision.score ?? null,
            reasons: row.decision.reasons,
            at: row.decision.at,
          }
        : null,
    // Servicing starts at the payout and is written with the loan row that records it (recordLoan).
    servicing: row.disbursement && parts.servicing ? servicingViewOf(parts.servicing) : null,
    statusHistory: parts.history,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** A repayment as the API shows it (its id under `id`). */
export interface RepaymentView {
  id: string;
  amount: string;
  date: string;
  mode: RepaymentMode;
  reference: string | null;
  reversed: boolean;
  /** When it was reversed (by management, or by the bank taking the transfer back: decision 0069). */
  reversedAt: string | null;
}

/** A repayment the loan holds, as the API shows it. */
export const repaymentView = ({ repaymentId, reversedAt, ...repayment }: LoanRepayment): RepaymentView => ({
  id: repaymentId,
  ...repayment,
  reversedAt: reversedAt ?? null,
});

export interface ServicingView {
  status: 'current' | 'overdue' | 'repaid';
  daysPastDue: number;
  pastDueSince: string | null;
  overdueAmount: string;
  dueNow: string;
  payoffAmount: string;
  outstandingPrincipal: string;
  paidTotal: string;
  nextDueDate: string | null;
  nextDueAmount: string | null;
  asOf: string;
  instalments: {
    number: number;
    dueDate: string;
    principal: string;
    interest: string;
    fee: string;
    total: string;
    paid: string;
    outstanding: string;
    overdue: boolean;
  }[];
  repayments: RepaymentView[];
}

/** The servicing the loan workflow recorded, as the API shows it; days past due counted to `today`. */
export function servicingViewOf(
  { schedule, repayments, position }: LoanServicing,
  today = new Date().toISOString().slice(0, 10),
): ServicingView {
  return {
    status: position.state,
    daysPastDue: daysPastDue(position, today),
    pastDueSince: position.pastDueSince,
    overdueAmount: position.overdueAmount,
    dueNow: position.dueNow,
    payoffAmount: position.payoffAmount,
    outstandingPrincipal: position.outstandingPrincipal,
    paidTotal: position.paidTotal,
    nextDueDate: position.nextDueDate,
    nextDueAmount: position.nextDueAmount,
    asOf: position.asOf,
    instalments: schedule.map((instalment, index) => {
      const held = position.instalments[index];
      return {
        ...instalment,
        paid: held?.paid ?? '0',
        outstanding: held?.outstanding ?? instalment.total,
        overdue: held?.overdue ?? false,
      };
    }),
    repayments: repayments.map(repaymentView),
  };
}
