import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayoutRegistration } from '../../activities/lending/disbursement.ts';
import { LoanRefusal } from '../../domain/lending/loan-lifecycle.ts';
import {
  cancelUpdate,
  issueDisbursementUpdate,
  type LoanSnapshot,
  payoutNotificationSignal,
  registerDisbursementUpdate,
} from '../../domain/lending/loan-process.ts';
import { eventually } from '../support/platform.ts';
import { type Loan, type LoanWorkflowHarness, startLoanWorkflowHarness } from './loan-workflow-harness.ts';

/**
 * The payout part of the loan workflow (decision 0041) with MOCKED activities on the run's real Temporal
 * dev server, the fast inner loop of test/lending/disbursement.test.ts: IssueDisbursement registers one
 * payout per attempt (retries of the registering activity keep its INVOICE), the notifications move the
 * loan by the table's rows and only for the open payout's INVOICE, a refusal leaves it Approved, and an
 * open payout refuses a second payout, Cancel and a registered disbursement.
 */

let harness: LoanWorkflowHarness;
let tenantId: string;

/** Every registration asked of the gateway, by loan (retries included). */
const registrations = new Map<string, PayoutRegistration[]>();
/** Loans whose first registration attempt fails as a network error would. */
const flaky = new Set<string>();
/** Loans whose payout the gateway refuses. */
const refused = new Set<string>();

beforeAll(async () => {
  harness = await startLoanWorkflowHarness('disbursement-workflow', {
    async decideLoan() {
      throw new Error('not asked in these tests');
    },
    async registerLoanPayout(request) {
      const asked = [...(registrations.get(request.loanId) ?? []), request];
      registrations.set(request.loanId, asked);
      if (refused.has(request.loanId))
        throw ApplicationFailure.nonRetryable('BAD_FIELD (RCPT_ID)', 'PayoutRefused');
      if (flaky.has(request.loanId) && asked.length === 1) throw new Error('collection gateway unreachable');
      return { idn: `40000${request.loanId.slice(0, 5)}`, expTime: '01.08.2027 23:59:59', replayed: false };
    },
  });
  tenantId = harness.tenantId;
});

afterAll(async () => {
  await harness?.stop();
});

const management = { role: 'management' as const };
const recipient = { name: 'Jane Doe', id: '123456789' };

/** An Approved loan (started in Approved, as a loan approved with its offer accepted). */
const approvedLoan = () => harness.startLoan({ status: 'Approved', createdBy: management });

const issue = (loan: Loan, amount = '1500') =>
  loan.executeUpdate(issueDisbursementUpdate, { args: [{ by: management, amount, recipient }] });

/** The refusal type of an Update that must be refused. */
async function refusalOf(update: Promise<unknown>): Promise<string | undefined> {
  const error = await update.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
  return ((error as WorkflowUpdateFailedError).cause as ApplicationFailure).type ?? undefined;
}

const lastRecord = (loanId: string) => harness.records.get(loanId)?.at(-1);
/** Waits until the read model has a snapshot matching `check`. */
const recorded = (loanId: string, check: (snapshot: LoanSnapshot) => boolean) =>
  eventually(
    async () => {
      const last = lastRecord(loanId);
      return last && check(last.snapshot) ? last : undefined;
    },
    10_000,
    `loan ${loanId} recorded`,
  );

describe('IssueDisbursement in the loan workflow', () => {
  it('registers the payout of the loan amount; PAID → Active with the disbursement, once', async () => {
    const { loan, loanId } = await approvedLoan();
    const answered = await issue(loan);
    expect(answered.status).toBe('Approved');
    expect(answered.payout).toMatchObject({
      attempt: 1,
      invoice: `${tenantId}-${loanId}-1`,
      amount: '1500.00',
      currency: 'EUR',
      state: 'pending',
    });
    expect(registrations.get(loanId)).toEqual([
      {
        tenantId,
        loanId,
        invoice: `${tenantId}-${loanId}-1`,
        amount: '1500.00',
        currency: 'EUR',
        recipient,
      },
    ]);

    const paid = { invoice: `${tenantId}-${loanId}-1`, status: 'PAID', payTime: '20270315101500' };
    await loan.signal(payoutNotificationSignal, paid);
    const active = await recorded(loanId, (snapshot) => snapshot.status === 'Active');
    expect(active.snapshot.disbursement).toEqual({ amount: '1500.00', date: '2027-03-15' });
    expect(active.change).toMatchObject({ status: 'Active', by: { role: 'system' } });

    // Repeated (delivered at least once), and a late EXPIRED of the same INVOICE: nothing changes.
    const count = harness.records.get(loanId)?.length;
    await loan.signal(payoutNotificationSignal, paid);
    await loan.signal(payoutNotificationSignal, { invoice: paid.invoice, status: 'EXPIRED' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(harness.records.get(loanId)?.length).toBe(count);
    expect(await refusalOf(issue(loan))).toBe(LoanRefusal.invalidStatus);
  });

  it('while the payout is open: a second payout, Cancel and a registered disbursement are refused', async () => {
    const { loan } = await approvedLoan();
    await issue(loan);
    expect(await refusalOf(issue(loan))).toBe(LoanRefusal.disbursementInProgress);
    expect(
      await refusalOf(loan.executeUpdate(cancelUpdate, { args: [{ by: management, reasonId: 'r1' }] })),
    ).toBe(LoanRefusal.disbursementInProgress);
    expect(
      await refusalOf(
        loan.executeUpdate(registerDisbursementUpdate, {
          args: [{ by: management, disbursement: { amount: '1500.00', date: '2027-01-01' } }],
        }),
      ),
    ).toBe(LoanRefusal.disbursementInProgress);
    expect(await refusalOf(issue(loan, '1499.99'))).toBe(LoanRefusal.disbursementAmountMismatch);
  });

  it('EXPIRED → Approved with the reason; issued again under the next INVOICE; the old one is ignored', async () => {
    const { loan, loanId } = await approvedLoan();
    await issue(loan);
    await loan.signal(payoutNotificationSignal, { invoice: `${tenantId}-${loanId}-1`, status: 'EXPIRED' });
    const expired = await recorded(loanId, (snapshot) => snapshot.payout?.state === 'expired');
    expect(expired.snapshot.status).toBe('Approved');
    expect(expired.change?.comments).toContain('expired uncollected');

    const again = await issue(loan);
    expect(again.payout).toMatchObject({ attempt: 2, invoice: `${tenantId}-${loanId}-2`, state: 'pending' });
    // A late PAID of the expired attempt is not this payout's.
    await loan.signal(payoutNotificationSignal, { invoice: `${tenantId}-${loanId}-1`, status: 'PAID' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(lastRecord(loanId)?.snapshot.status).toBe('Approved');
    await loan.signal(payoutNotificationSignal, { invoice: `${tenantId}-${loanId}-2`, status: 'PAID' });
    await recorded(loanId, (snapshot) => snapshot.status === 'Active');
  });

  it('a retried registration keeps its INVOICE; a refused one leaves the loan Approved, issuable again', async () => {
    const retried = await approvedLoan();
    flaky.add(retried.loanId);
    const answered = await issue(retried.loan);
    expect(answered.payout?.state).toBe('pending');
    const asked = registrations.get(retried.loanId) ?? [];
    expect(asked).toHaveLength(2);
    expect(new Set(asked.map((request) => request.invoice))).toEqual(
      new Set([`${tenantId}-${retried.loanId}-1`]),
    );

    const { loan, loanId } = await approvedLoan();
    refused.add(loanId);
    expect(await refusalOf(issue(loan))).toBe(LoanRefusal.payoutRefused);
    const failed = await recorded(loanId, (snapshot) => snapshot.payout?.state === 'failed');
    expect(failed.snapshot.status).toBe('Approved');
    expect(failed.change?.comments).toContain('BAD_FIELD');
    refused.delete(loanId);
    expect((await issue(loan)).payout).toMatchObject({ attempt: 2, state: 'pending' });
  });
});
