import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { lendingLoanServicing } from '../../db/schema/lending-servicing.ts';
import {
  daysPastDue,
  type LoanRepayment,
  type LoanServicing,
  type RepaymentMode,
} from '../../domain/lending/servicing.ts';

/**
 * A paid-out loan's servicing as the API answers it (decision 0043): from the read model the loan
 * workflow writes (lending_loan_servicing); days past due are counted to today.
 */

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

/** The loan's servicing, or null before it is paid out. */
export async function servicingView(
  db: Database,
  tenantId: string,
  loanId: string,
  today = new Date().toISOString().slice(0, 10),
): Promise<ServicingView | null> {
  const [row] = await db
    .select({ servicing: lendingLoanServicing.servicing })
    .from(lendingLoanServicing)
    .where(and(eq(lendingLoanServicing.tenantId, tenantId), eq(lendingLoanServicing.loanId, loanId)))
    .limit(1);
  return row ? servicingViewOf(row.servicing, today) : null;
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
