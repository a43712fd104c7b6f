import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { creditProductSchema } from '../../domain/lending/credit-products.ts';
import { LoanRefusal } from '../../domain/lending/loan-lifecycle.ts';
import {
  editRepaymentUpdate,
  type LoanInput,
  type LoanSnapshot,
  registerDisbursementUpdate,
  registerRepaymentUpdate,
  reverseRepaymentUpdate,
} from '../../domain/lending/loan-process.ts';
import { calculateSchedule } from '../../domain/lending/schedule.ts';
import { addDays } from '../../domain/lending/servicing.ts';
import { eventually } from '../support/platform.ts';
import { type Loan, type LoanWorkflowHarness, startLoanWorkflowHarness } from './loan-workflow-harness.ts';
import { TEST_CREDIT_PRODUCT } from './products-support.ts';

/**
 * Servicing in the loan workflow with MOCKED activities (decision 0043): the schedule from the
 * disbursement, Past Due on a due date's timer and back, repayments with their allocation, edits and
 * reversals (also of a Repaid loan), refusals, and continue-as-new with Updates in flight.
 */

let harness: LoanWorkflowHarness;
beforeAll(async () => {
  harness = await startLoanWorkflowHarness('servicing-workflow', {
    async decideLoan() {
      return { outcome: 'approve', score: 700, reasons: [], at: new Date().toISOString() };
    },
    async registerLoanPayout() {
      return { idn: null, expTime: null, replayed: false };
    },
  });
});
afterAll(async () => {
  await harness?.stop();
});

const today = () => new Date().toISOString().slice(0, 10);
const by = { role: 'management' as const };
let repaymentCount = 0;
const repay = (
  loan: Loan,
  amount: string,
  extra: Partial<{ mode: 'Regular payment' | 'Early repayment'; date: string; reference: string }> = {},
) => {
  repaymentCount += 1;
  const repaymentId = `rpm_test_${repaymentCount}`;
  return loan
    .executeUpdate(registerRepaymentUpdate, {
      args: [{ by, repayment: { repaymentId, amount, date: today(), mode: 'Regular payment', ...extra } }],
    })
    .then((snapshot) => ({ snapshot, repaymentId }));
};

/** A loan created by management with its disbursement on `date` (1200.00 over 12 months at 12 %). */
const disbursedLoan = (date: string, overrides: Partial<LoanInput> = {}) =>
  harness.startLoan({
    status: 'Active',
    terms: { productName: 'Personal 12', amount: '1200.00', term: 12 },
    createdBy: by,
    disbursement: { amount: '1200.00', date },
    ...overrides,
  });

async function refusal(update: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await update.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
  const cause = (error as WorkflowUpdateFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return cause as ApplicationFailure;
}

const lastRecord = (loanId: string) => harness.records.get(loanId)?.at(-1)?.snapshot as LoanSnapshot;

describe('servicing in the loan workflow', () => {
  it('a loan disbursed months ago is Past Due; paying the overdue amount brings it back to Active, a reversal back to Past Due', async () => {
    const { loan, first } = await disbursedLoan(addDays(today(), -75));
    expect(first.status).toBe('Past Due');
    const position = first.servicing?.position;
    expect(position?.state).toBe('overdue');
    expect(position?.pastDueSince).toBe(first.servicing?.schedule[0]?.dueDate);
    expect(position?.instalments.filter((row) => row.overdue).length).toBe(2);

    const paid = await repay(loan, position?.overdueAmount as string);
    expect(paid.snapshot.status).toBe('Active');
    expect(paid.snapshot.servicing?.position.overdueAmount).toBe('0.00');
    // The allocation: the two oldest instalments, whole.
    expect(paid.snapshot.servicing?.position.instalments.slice(0, 2).map((row) => row.outstanding)).toEqual([
      '0.00',
      '0.00',
    ]);

    const reversed = await loan.executeUpdate(reverseRepaymentUpdate, {
      args: [{ by, repaymentId: paid.repaymentId }],
    });
    expect(reversed.status).toBe('Past Due');
    expect(reversed.servicing?.repayments[0]?.reversed).toBe(true);
    // A repeated reversal changes nothing.
    const again = await loan.executeUpdate(reverseRepaymentUpdate, {
      args: [{ by, repaymentId: paid.repaymentId }],
    });
    expect(again.version).toBe(reversed.version);
  });

  it('allocation: fees, interest, then principal of the oldest instalment first; Early repayment pays principal from the last', async () => {
    const { loan, first } = await disbursedLoan(addDays(today(), -40));
    const [one, two] = first.servicing?.schedule ?? [];
    const partial = await repay(loan, '5.00');
    // 1200.00 at 1 % a month: the first instalment's interest is 12.00; 5.00 pays interest only.
    expect(one?.interest).toBe('12.00');
    expect(partial.snapshot.servicing?.position.instalments[0]?.paid).toBe('5.00');
    expect(partial.snapshot.servicing?.position.outstandingPrincipal).toBe('1200.00');
    const early = await repay(loan, '100.00', { mode: 'Early repayment' });
    const instalments = early.snapshot.servicing?.position.instalments ?? [];
    expect(early.snapshot.servicing?.position.outstandingPrincipal).toBe('1100.00');
    // The last instalment's principal is paid first.
    expect(instalments.at(-1)?.paid).not.toBe('0.00');
    expect(instalments[1]?.paid).toBe('0.00');
    expect(two).toBeDefined();
    // An edit recomputes: 20.00 instead of 5.00 pays the first instalment's interest and 8.00 of its principal.
    const edited = await loan.executeUpdate(editRepaymentUpdate, {
      args: [
        {
          by,
          repayment: {
            repaymentId: partial.repaymentId,
            amount: '20.00',
            date: today(),
            mode: 'Regular payment',
          },
        },
      ],
    });
    expect(edited.servicing?.position.instalments[0]?.paid).toBe('20.00');
    expect(edited.servicing?.position.outstandingPrincipal).toBe('1092.00');
  });

  it('everything repaid → Repaid; a reversal within the window brings it back; too much is refused', async () => {
    const { loan, first } = await disbursedLoan(addDays(today(), -10));
    expect(first.status).toBe('Active');
    const payoff = first.servicing?.position.payoffAmount as string;
    const tooMuch = await refusal(repay(loan, (Number(payoff) + 1).toFixed(2)));
    expect(tooMuch.type).toBe(LoanRefusal.repaymentExceedsBalance);
    const paid = await repay(loan, payoff, { reference: 'stmt-1' });
    expect(paid.snapshot.status).toBe('Repaid');
    // The same reference again answers the first repayment.
    const replay = await repay(loan, payoff, { reference: 'stmt-1' });
    expect(replay.snapshot.servicing?.repayments).toHaveLength(1);
    const refused = await refusal(repay(loan, '1.00'));
    expect(refused.type).toBe(LoanRefusal.invalidStatus);
    expect(refused.message).toContain('status Repaid');
    const reversed = await loan.executeUpdate(reverseRepaymentUpdate, {
      args: [{ by, repaymentId: paid.repaymentId }],
    });
    expect(reversed.status).toBe('Active');
    const unknown = await refusal(
      loan.executeUpdate(reverseRepaymentUpdate, { args: [{ by, repaymentId: 'rpm_nope' }] }),
    );
    expect(unknown.type).toBe(LoanRefusal.repaymentNotFound);
  });

  it('a repayment of a loan not paid out is refused by its status', async () => {
    const { loan } = await harness.startLoan();
    const refused = await refusal(repay(loan, '10.00'));
    expect(refused.type).toBe(LoanRefusal.invalidStatus);
    expect(refused.message).toContain('status Origination');
  });

  it('a registered disbursement starts the schedule from its date', async () => {
    const { loan } = await harness.startLoan({
      status: 'Approved',
      terms: { productName: 'Personal 12', amount: '1200.00', term: 12 },
    });
    const active = await loan.executeUpdate(registerDisbursementUpdate, {
      args: [{ by, disbursement: { amount: '1200.00', date: today() } }],
    });
    expect(active.status).toBe('Active');
    expect(active.servicing?.schedule).toHaveLength(12);
    expect(active.servicing?.position.nextDueDate).toBe(active.servicing?.schedule[0]?.dueDate);
  });

  it('the due date timer: an instalment unpaid when its grace period ends makes the loan Past Due', async () => {
    // A disbursement whose first instalment fell due yesterday, with a grace period ending in 3 seconds.
    const product = creditProductSchema.parse(TEST_CREDIT_PRODUCT);
    const yesterday = addDays(today(), -1);
    let start = '';
    for (let back = 26; back <= 33 && !start; back++) {
      const candidate = addDays(today(), -back);
      const schedule = calculateSchedule(product, { amount: '1200.00', term: 12, startDate: candidate });
      if (schedule.instalments[0]?.dueDate === yesterday) start = candidate;
    }
    expect(start).not.toBe('');
    const graceMs = Date.now() - Date.parse(`${today()}T00:00:00Z`) + 3_000;
    const { loan, loanId, first } = await disbursedLoan(start, {
      servicing: { graceMs, reversalWindowMs: 60_000 },
    });
    expect(first.status).toBe('Active');
    expect(first.servicing?.position.dueNow).toBe(first.servicing?.schedule[0]?.total);
    await eventually(
      async () => (lastRecord(loanId).status === 'Past Due' ? true : undefined),
      15_000,
      'Past Due',
    );
    expect(lastRecord(loanId).servicing?.position.pastDueSince).toBe(yesterday);
    const paid = await repay(loan, lastRecord(loanId).servicing?.position.overdueAmount as string);
    expect(paid.snapshot.status).toBe('Active');
  });

  it('continues as new when its history grows, losing no Update in flight', async () => {
    const { loan, loanId } = await disbursedLoan(addDays(today(), -5), {
      servicing: { graceMs: 0, reversalWindowMs: 60_000, historyLimit: 40 },
    });
    const firstRun = (await loan.describe()).runId;
    const answers = await Promise.all(Array.from({ length: 8 }, () => repay(loan, '10.00')));
    for (const answer of answers)
      expect(
        answer.snapshot.servicing?.repayments.some((held) => held.repaymentId === answer.repaymentId),
      ).toBe(true);
    for (let round = 0; round < 6; round++) await repay(loan, '1.00');
    await eventually(
      async () => ((await loan.describe()).runId !== firstRun ? true : undefined),
      15_000,
      'a new run',
    );
    const after = await repay(loan, '1.00');
    expect(after.snapshot.servicing?.repayments).toHaveLength(15);
    expect(after.snapshot.servicing?.position.paidTotal).toBe('87.00');
    expect(lastRecord(loanId).version).toBe(after.snapshot.version);
  });
});
