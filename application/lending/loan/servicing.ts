import { randomBytes } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { and, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { lendingLoanRepayments } from '../../../db/schema/lending-servicing.ts';
import { minorUnitProblem } from '../../../domain/lending/credit-products.ts';
import {
  cancelRolloverUpdate,
  editRepaymentUpdate,
  type LoanSnapshot,
  registerRepaymentUpdate,
  requestRolloverUpdate,
  reverseRepaymentUpdate,
} from '../../../domain/lending/loan-process.ts';
import type { RepaymentMode } from '../../../domain/lending/servicing.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';
import { requireSameRequest } from '../../shared/idempotency.ts';
import { Refusal } from '../../shared/refusal.ts';
import { todayUtc } from '../credit-products.ts';
import type { LoanRequest } from './record.ts';
import { type LoanCaller, loanOf, loanView, refuseOutsideStatuses } from './record.ts';
import type { LoanRow } from './view.ts';
import { type LoanView, type RepaymentView, repaymentView, viewOfLoan } from './view.ts';
import { moveLoan, moveLoanOf } from './workflow.ts';
/**
 * Servicing (workflows/lending/loan/servicing.ts, decision 0043): management registers, edits and
 * reverses repayments, the customer requests a rollover or cancels it. The read model
 * (lending_loan_repayments) finds a repayment's loan by its id and a repeated registration by its reference.
 */

export type RepaymentRow = typeof lendingLoanRepayments.$inferSelect;
type Deps = Pick<UseCaseDeps, 'db' | 'temporal'>;
type LoanHandle = Parameters<Parameters<typeof moveLoan>[3]>[0];

/** A request about one repayment of the caller's tenant. */
interface RepaymentRequest {
  caller: LoanCaller;
  repaymentId: string;
}

/** A repayment id: unique per tenant (random, 64 bits). */
const newRepaymentId = () => `rpm_${randomBytes(8).toString('hex')}`;

/** A repayment's amount, date (today by default) and mode, as management gives them. */
export interface RepaymentFields {
  amount: string;
  date?: string | undefined;
  mode: RepaymentMode;
}

/** What a repayment operation answers: the repayment as the loan now holds it, and the loan. */
export interface RepaymentAnswer {
  repayment: RepaymentView;
  loan: LoanView;
}

/** The date of a repayment: today by default, never in the future nor before the disbursement. */
function repaymentDate(row: LoanRow, date: string | undefined): string {
  const today = todayUtc();
  const chosen = date ?? today;
  if (chosen > today) throw Refusal.field('date', 'must not be in the future');
  if (row.disbursement && chosen < row.disbursement.date)
    throw Refusal.field('date', `must not be before the disbursement (${row.disbursement.date})`);
  return chosen;
}

async function findRepayment(
  db: Database,
  tenantId: string,
  where: { repaymentId: string } | { loanId: string; reference: string },
): Promise<RepaymentRow | undefined> {
  const [row] = await db
    .select()
    .from(lendingLoanRepayments)
    .where(
      'repaymentId' in where
        ? and(
            eq(lendingLoanRepayments.tenantId, tenantId),
            eq(lendingLoanRepayments.repaymentId, where.repaymentId),
          )
        : and(
            eq(lendingLoanRepayments.tenantId, tenantId),
            eq(lendingLoanRepayments.loanId, where.loanId),
            eq(lendingLoanRepayments.reference, where.reference),
          ),
    )
    .limit(1);
  return row;
}

/** The loan of a repayment of the caller's tenant: 404 for an unknown one or another tenant's. */
async function loanOfRepayment(deps: Deps, caller: LoanCaller, repaymentId: string): Promise<LoanRow> {
  const repayment = await findRepayment(deps.db, caller.tenantId, { repaymentId });
  if (!repayment) throw Refusal.notFound('Repayment');
  return loanOf(deps, caller, repayment.loanId);
}

/** The repayment as the loan now holds it (from the Update's answer). */
function repaymentIn(
  snapshot: LoanSnapshot | undefined,
  match: { repaymentId: string; reference?: string | undefined },
): RepaymentView {
  const held = snapshot?.servicing?.repayments.find(
    (repayment) =>
      repayment.repaymentId === match.repaymentId ||
      (match.reference !== undefined && repayment.reference === match.reference),
  );
  if (!held) throw new Error(`repayment ${match.repaymentId} is not in the loan's answer`);
  return repaymentView(held);
}

/**
 * Registers a repayment of an Active or Past Due loan (an Update of its workflow, answered once
 * recorded). A repeated `reference` of the loan answers the first repayment: `created` false.
 */
export async function registerRepayment(
  deps: Deps,
  {
    caller,
    ...input
  }: RepaymentFields & { caller: LoanCaller; loanId: string; reference?: string | undefined },
): Promise<RepaymentAnswer & { created: boolean }> {
  const row = await loanOf(deps, caller, input.loanId);
  refuseUnpayableAmount(row, input.amount);
  if (input.reference) {
    const earlier = await findRepayment(deps.db, row.tenantId, {
      loanId: row.loanId,
      reference: input.reference,
    });
    if (earlier) {
      const { repaymentId, loanId: _, tenantId: __, version: ___, updatedAt: ____, ...rest } = earlier;
      requireSameRepayment(earlier, input);
      const loan = await loanView(deps.db, row, 'management');
      // As the loan holds it (when it was reversed, too); the row is only its index.
      const held = loan.servicing?.repayments.find((repayment) => repayment.id === repaymentId);
      return { repayment: held ?? { id: repaymentId, ...rest, reversedAt: null }, loan, created: false };
    }
  }
  refuseOutsideStatuses(row, 'registerRepayment');
  const repayment = {
    repaymentId: newRepaymentId(),
    amount: input.amount,
    date: repaymentDate(row, input.date),
    mode: input.mode,
    reference: input.reference,
  };
  let answered: LoanSnapshot | undefined;
  const moved = await moveLoan(deps, row, 'registerRepayment', async (loan) => {
    answered = await loan.executeUpdate(registerRepaymentUpdate, { args: [{ by: caller.actor, repayment }] });
    return answered;
  });
  const held = repaymentIn(answered, repayment);
  const created = held.id === repayment.repaymentId;
  // A concurrent first request with the same reference won the race: the workflow answered its repayment.
  if (!created) requireSameRepayment(held, input);
  return { repayment: held, loan: viewOfLoan(moved, 'management'), created };
}

/**
 * A repeated `reference` must come with the repayment it first came with (422 otherwise): the same
 * amount and mode, and the same date when the request names one (left out, it meant "today" then).
 */
function requireSameRepayment(
  first: { amount: string; date: string; mode: RepaymentMode },
  again: RepaymentFields,
): void {
  requireSameRequest(
    { amount: new Decimal(first.amount).toString(), mode: first.mode, date: again.date && first.date },
    { amount: new Decimal(again.amount).toString(), mode: again.mode, date: again.date },
    { message: 'This reference was used for a different repayment of the loan', field: 'reference' },
  );
}

/** An amount in the loan's currency: more decimals than its minor unit are refused, never rounded. */
function refuseUnpayableAmount(row: LoanRow, amount: string): void {
  const problem = minorUnitProblem(amount, row.currency);
  if (problem) throw Refusal.field('amount', problem);
}

/**
 * A correction of a repayment (edit or reversal): its loan's Update, also for a Repaid loan; answers the
 * repayment as the loan now holds it.
 */
async function correctRepayment(
  deps: Deps,
  caller: LoanCaller,
  repaymentId: string,
  /** Checks the request against the loan (before its status is), then sends its Update. */
  updateOf: (row: LoanRow) => (loan: LoanHandle) => Promise<LoanSnapshot>,
): Promise<RepaymentAnswer> {
  const row = await loanOfRepayment(deps, caller, repaymentId);
  const update = updateOf(row);
  let answered: LoanSnapshot | undefined;
  const moved = await moveLoan(
    deps,
    row,
    'correctRepayment',
    async (loan) => {
      answered = await update(loan);
      return answered;
    },
    true,
  );
  return {
    repayment: repaymentIn(answered, { repaymentId }),
    loan: viewOfLoan(moved, 'management'),
  };
}

/** Edits a repayment in force; balances and status are recomputed, also for a Repaid loan. */
export const editRepayment = (
  deps: Deps,
  { caller, repaymentId, ...input }: RepaymentFields & RepaymentRequest,
) =>
  correctRepayment(deps, caller, repaymentId, (row) => {
    refuseUnpayableAmount(row, input.amount);
    const date = repaymentDate(row, input.date);
    const repayment = { repaymentId, amount: input.amount, date, mode: input.mode };
    return (loan) => loan.executeUpdate(editRepaymentUpdate, { args: [{ by: caller.actor, repayment }] });
  });

/** Reverses a repayment; balances and status are recomputed, also for a Repaid loan. */
export const reverseRepayment = (deps: Deps, { caller, repaymentId }: RepaymentRequest) =>
  correctRepayment(
    deps,
    caller,
    repaymentId,
    () => (loan) => loan.executeUpdate(reverseRepaymentUpdate, { args: [{ by: caller.actor, repaymentId }] }),
  );

export const requestRollover = (deps: Deps, { caller, loanId }: LoanRequest) =>
  moveLoanOf(deps, caller, loanId, 'requestRollover', (loan) =>
    loan.executeUpdate(requestRolloverUpdate, { args: [{ by: caller.actor }] }),
  );

export const cancelRollover = (deps: Deps, { caller, loanId }: LoanRequest) =>
  moveLoanOf(deps, caller, loanId, 'cancelRollover', (loan) =>
    loan.executeUpdate(cancelRolloverUpdate, { args: [{ by: caller.actor }] }),
  );
