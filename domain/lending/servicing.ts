import { Decimal } from 'decimal.js';

/**
 * Servicing of a paid-out loan (decision 0043): its schedule as fixed at the disbursement, the
 * repayments registered against it, and where the loan stands on a day. Pure (no I/O, no clock), so
 * the loan workflow, the API and the tests compute the very same position.
 *
 * Allocation (design): the repayments are applied in the order of their dates (registration order on
 * the same date); a `Regular payment` pays the instalments oldest first, within an instalment its fee,
 * then its interest, then its principal; an `Early repayment` pays principal only, from the last
 * instalment backwards (the term shortens; the interest and fees of the schedule are not recalculated).
 * A repayment larger than what it may pay is refused. Edits and reversals re-run the allocation from
 * the start, so balances and status always follow from the repayments as they now are.
 */

export const repaymentModes = ['Regular payment', 'Early repayment'] as const;
export type RepaymentMode = (typeof repaymentModes)[number];

/** An instalment as the loan holds it (domain/lending/schedule.ts Instalment, without the balance). */
export interface ScheduledInstalment {
  number: number;
  /** YYYY-MM-DD. */
  dueDate: string;
  principal: string;
  interest: string;
  fee: string;
  total: string;
}

export interface LoanRepayment {
  /** Unique per tenant (Management/Loans/Repayments/{id}). */
  repaymentId: string;
  amount: string;
  /** YYYY-MM-DD the money was received. */
  date: string;
  mode: RepaymentMode;
  /** The client's reference: a repeated POST with the same reference answers the first repayment. */
  reference: string | null;
  reversed: boolean;
  /**
   * When it was reversed (ISO; management's DELETE, or the bank taking a transfer back: decision 0069);
   * absent on repayments reversed before it was kept.
   */
  reversedAt?: string | null | undefined;
}

export interface InstalmentPosition {
  number: number;
  dueDate: string;
  total: string;
  paid: string;
  outstanding: string;
  /** Unpaid after its due date and the grace period. */
  overdue: boolean;
}

export interface ServicingPosition {
  /** The moment the position is of (ISO timestamp). */
  asOf: string;
  state: 'current' | 'overdue' | 'repaid';
  /** Unpaid amount of the instalments past their due date and grace period. */
  overdueAmount: string;
  /** Unpaid amount of every instalment due on or before `asOf` (overdue or in its grace period). */
  dueNow: string;
  /** Everything still owed (the pay-off amount; interest of the schedule is not recalculated). */
  payoffAmount: string;
  outstandingPrincipal: string;
  paidTotal: string;
  /** The due date of the oldest overdue instalment: days past due are counted from it. */
  pastDueSince: string | null;
  nextDueDate: string | null;
  nextDueAmount: string | null;
  instalments: InstalmentPosition[];
}

/** What servicing keeps in the loan (workflow state, carried across continue-as-new, in the read model). */
export interface LoanServicing {
  schedule: ScheduledInstalment[];
  repayments: LoanRepayment[];
  /** After the end of a due date (UTC), how long an unpaid instalment waits before the loan is Past Due (ms). */
  graceMs: number;
  position: ServicingPosition;
}

/** A repayment that cannot be applied: its amount is more than it may pay. */
export class RepaymentRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RepaymentRefused';
  }
}

type Parts = { fee: Decimal; interest: Decimal; principal: Decimal };
const ZERO = new Decimal(0);
const text = (value: Decimal, digits: number) => value.toFixed(digits);

/** YYYY-MM-DD `days` after `date`. */
export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (YYYY-MM-DD). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** When an instalment due on `dueDate` and still unpaid makes the loan Past Due: the end of the day (UTC) plus the grace. */
export const overdueAt = (dueDate: string, graceMs: number) =>
  Date.parse(`${addDays(dueDate, 1)}T00:00:00Z`) + graceMs;

/**
 * Where the loan stands at `asOf` with `repayments` applied by the allocation order; throws
 * RepaymentRefused naming the repayment that pays more than it may.
 */
export function servicingPosition(
  schedule: readonly ScheduledInstalment[],
  repayments: readonly LoanRepayment[],
  graceMs: number,
  asOf: string,
): ServicingPosition {
  const now = Date.parse(asOf);
  const today = asOf.slice(0, 10);
  const digits = schedule[0]?.total.split('.')[1]?.length ?? 2;
  const owed: Parts[] = schedule.map((instalment) => ({
    fee: new Decimal(instalment.fee),
    interest: new Decimal(instalment.interest),
    principal: new Decimal(instalment.principal),
  }));
  const applied = repayments
    .map((repayment, order) => ({ repayment, order }))
    .filter(({ repayment }) => !repayment.reversed)
    .sort((a, b) => a.repayment.date.localeCompare(b.repayment.date) || a.order - b.order);
  for (const { repayment } of applied) {
    let left = new Decimal(repayment.amount);
    const take = (parts: Parts, part: keyof Parts) => {
      const paid = Decimal.min(left, parts[part]);
      parts[part] = parts[part].minus(paid);
      left = left.minus(paid);
    };
    if (repayment.mode === 'Regular payment') {
      for (const parts of owed)
        for (const part of ['fee', 'interest', 'principal'] as const) take(parts, part);
    } else {
      for (const parts of [...owed].reverse()) take(parts, 'principal');
    }
    if (left.gt(0))
      throw new RepaymentRefused(
        `repayment ${repayment.repaymentId} of ${repayment.amount} on ${repayment.date} pays ${text(left, digits)} more than the loan owes${repayment.mode === 'Early repayment' ? ' in principal' : ''}`,
      );
  }

  const instalments = schedule.map((instalment, index) => {
    const parts = owed[index] as Parts;
    const outstanding = parts.fee.plus(parts.interest).plus(parts.principal);
    return {
      number: instalment.number,
      dueDate: instalment.dueDate,
      total: instalment.total,
      paid: text(new Decimal(instalment.total).minus(outstanding), digits),
      outstanding: text(outstanding, digits),
      overdue: outstanding.gt(0) && now >= overdueAt(instalment.dueDate, graceMs),
    };
  });
  const sum = (rows: readonly InstalmentPosition[]) =>
    rows.reduce((total, row) => total.plus(row.outstanding), ZERO);
  const unpaid = instalments.filter((row) => new Decimal(row.outstanding).gt(0));
  const overdue = unpaid.filter((row) => row.overdue);
  const next = unpaid.find((row) => row.dueDate > today) ?? null;
  const payoff = sum(unpaid);
  return {
    asOf,
    state: payoff.isZero() ? 'repaid' : overdue.length > 0 ? 'overdue' : 'current',
    overdueAmount: text(sum(overdue), digits),
    dueNow: text(sum(unpaid.filter((row) => row.dueDate <= today)), digits),
    payoffAmount: text(payoff, digits),
    outstandingPrincipal: text(
      owed.reduce((total, parts) => total.plus(parts.principal), ZERO),
      digits,
    ),
    paidTotal: text(
      applied.reduce((total, { repayment }) => total.plus(repayment.amount), ZERO),
      digits,
    ),
    pastDueSince: overdue[0]?.dueDate ?? null,
    nextDueDate: next?.dueDate ?? null,
    nextDueAmount: next?.outstanding ?? null,
    instalments,
  };
}

/**
 * The next moment (epoch ms) the position changes by itself: an unpaid instalment leaves its due date
 * and grace period; none when every unpaid instalment is overdue already (or nothing is owed).
 */
export function nextServicingMoment(servicing: LoanServicing): number | null {
  const pending = servicing.position.instalments.find(
    (row) => !row.overdue && new Decimal(row.outstanding).gt(0),
  );
  return pending ? overdueAt(pending.dueDate, servicing.graceMs) : null;
}

/** Days past due on `today` (0 when no instalment is overdue). */
export const daysPastDue = (position: ServicingPosition, today: string) =>
  position.pastDueSince ? Math.max(0, daysBetween(position.pastDueSince, today)) : 0;

/**
 * The repayment a loan created with its disbursement brings along (`repaidAmount`, dated `date`): a
 * Regular payment, at most what the schedule asks for in all; none for nothing repaid.
 */
export function openingRepayment(
  schedule: readonly ScheduledInstalment[],
  loanId: string,
  repaidAmount: string | undefined,
  date: string,
): LoanRepayment | null {
  if (repaidAmount === undefined || new Decimal(repaidAmount).lte(0)) return null;
  const payable = schedule.reduce((total, instalment) => total.plus(instalment.total), ZERO);
  const digits = schedule[0]?.total.split('.')[1]?.length ?? 2;
  return {
    repaymentId: `${loanId}-opening`,
    amount: text(Decimal.min(payable, repaidAmount), digits),
    date,
    mode: 'Regular payment',
    reference: null,
    reversed: false,
  };
}
