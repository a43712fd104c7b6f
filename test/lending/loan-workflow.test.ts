import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type LoanOperation,
  LoanRefusal,
  type LoanStatus,
  statusAfter,
  stepOf,
} from '../../domain/lending/loan-lifecycle.ts';
import {
  acceptOfferUpdate,
  addCollateralUpdate,
  approveUpdate,
  cancelRolloverUpdate,
  cancelUpdate,
  declineOfferUpdate,
  detailsCompletedUpdate,
  type LoanInput,
  type LoanSnapshot,
  processUpdate,
  registerDisbursementUpdate,
  requestRolloverUpdate,
  setAutochargeUpdate,
  updateCoApplicantUpdate,
  updateLoanDetailsUpdate,
} from '../../domain/lending/loan-process.ts';
import { type Loan, type LoanWorkflowHarness, startLoanWorkflowHarness } from './loan-workflow-harness.ts';

/**
 * The loan workflow with MOCKED activities (the read model kept in memory, the bureau answering by the
 * applicant's last name) on the run's real Temporal dev server: every Update the workflow has, in every
 * status it can be brought to, moves the loan exactly as the transition table says, or is refused by its
 * validator with the table's refusal (409 `invalid_loan_status` at the API). The fast inner loop for the
 * lifecycle; test/lending/loans.test.ts drives the same over HTTP.
 */

let harness: LoanWorkflowHarness;

/** Credit checks asked, by loan. */
const checks = new Map<string, number>();

beforeAll(async () => {
  harness = await startLoanWorkflowHarness('loan-workflow', {
    async decideLoan(request) {
      checks.set(request.loanId, (checks.get(request.loanId) ?? 0) + 1);
      const outcome = { Decline: 'decline', Refer: 'refer' }[request.applicant.lastName] ?? 'approve';
      if (request.applicant.lastName === 'Slow') throw new Error('credit bureau unreachable: timeout');
      if (request.applicant.lastName === 'Later') await new Promise((resolve) => setTimeout(resolve, 3_000));
      return {
        outcome: outcome as 'approve' | 'decline' | 'refer',
        score: 700,
        reasons: [],
        at: new Date().toISOString(),
      };
    },
    // The gateway's answer to a cash payout (decision 0041; end to end in test/lending/disbursement.test.ts).
    async registerLoanPayout() {
      return { idn: '4000000001', expTime: null, replayed: false };
    },
  });
});

afterAll(async () => {
  await harness?.stop();
});

const customer = { role: 'customer' as const, id: 'usr_1' };
const management = { role: 'management' as const };
const applicant = (lastName = 'Doe') => ({ firstName: 'Jane', lastName, ssn: '123-45-6789' });

/** Starts a loan as the API does (Update-with-Start); resolves with its handle and first snapshot. */
const startLoan = (overrides: Partial<LoanInput> = {}) => harness.startLoan(overrides);

/** Every state the tests bring a loan to, and how (through the workflow's own Updates). */
const reachable = [
  'Pre-Origination',
  'Origination',
  'Reprocessing',
  'Collateral',
  'Collateral with a collateral',
  'Offer confirmation',
  'Waiting for approval (offer accepted)',
  'Waiting for approval (referred)',
  'Approved',
  'Active',
  'Active with a rollover requested',
  'Past Due',
] as const;
type Reachable = (typeof reachable)[number];

const statusOfState = (state: Reachable): LoanStatus => state.replace(/ \(.*\)$| with .*$/, '') as LoanStatus;

async function loanIn(state: Reachable, multipleOffers = false): Promise<Loan> {
  const secured = state.startsWith('Collateral');
  const initial: LoanStatus =
    state === 'Pre-Origination'
      ? 'Pre-Origination'
      : state.startsWith('Past Due')
        ? 'Past Due'
        : 'Origination';
  const { loan } = await startLoan({ status: initial, secured, multipleOffers });
  if (initial !== 'Origination') return loan;
  const process = (lastName?: string) =>
    harness.decided(
      loan.executeUpdate(processUpdate, { args: [{ by: customer, applicant: applicant(lastName) }] }),
    );
  if (state === 'Origination') return loan;
  if (secured) {
    await loan.executeUpdate(processUpdate, { args: [{ by: customer, applicant: applicant() }] });
    if (state === 'Collateral with a collateral') await addCollateral(loan);
    return loan;
  }
  if (state === 'Waiting for approval (referred)') {
    await process('Refer');
    return loan;
  }
  await process();
  if (state === 'Offer confirmation') return loan;
  if (state === 'Reprocessing') {
    await loan.executeUpdate(updateLoanDetailsUpdate, {
      args: [
        {
          by: customer,
          terms: { productName: 'Personal 12', amount: '2000.00', term: 12 },
          secured: false,
          currency: 'EUR',
        },
      ],
    });
    return loan;
  }
  await loan.executeUpdate(acceptOfferUpdate, { args: [{ by: customer }] });
  if (state === 'Waiting for approval (offer accepted)') return loan;
  // The API approves an accepted offer once its documents are signed (decision 0040).
  await loan.executeUpdate(approveUpdate, {
    args: [{ by: management, comments: 'ok', documentsSigned: true }],
  });
  if (state === 'Approved') return loan;
  await loan.executeUpdate(registerDisbursementUpdate, {
    args: [{ by: management, disbursement: { amount: '1500', date: new Date().toISOString().slice(0, 10) } }],
  });
  if (state === 'Active with a rollover requested')
    await loan.executeUpdate(requestRolloverUpdate, { args: [{ by: customer }] });
  return loan;
}

const addCollateral = (loan: Loan) =>
  loan.executeUpdate(addCollateralUpdate, {
    args: [{ by: customer, collateral: { kind: 'vehicle', description: 'Car', value: '9000.00' } }],
  });

/** The workflow's Updates by the table's operation they perform (one representative each). */
const operations: Partial<Record<LoanOperation, (loan: Loan) => Promise<LoanSnapshot>>> = {
  detailsCompleted: (loan) => loan.executeUpdate(detailsCompletedUpdate),
  process: (loan) =>
    harness.decided(loan.executeUpdate(processUpdate, { args: [{ by: customer, applicant: applicant() }] })),
  acceptOffer: (loan) => loan.executeUpdate(acceptOfferUpdate, { args: [{ by: customer }] }),
  declineOffer: (loan) => loan.executeUpdate(declineOfferUpdate, { args: [{ by: customer }] }),
  approve: (loan) => loan.executeUpdate(approveUpdate, { args: [{ by: management, documentsSigned: true }] }),
  registerDisbursement: (loan) =>
    loan.executeUpdate(registerDisbursementUpdate, {
      args: [
        { by: management, disbursement: { amount: '1500.00', date: new Date().toISOString().slice(0, 10) } },
      ],
    }),
  cancel: (loan) =>
    loan.executeUpdate(cancelUpdate, { args: [{ by: customer, reasonId: 'crs_1', comments: 'no' }] }),
  updateLoanDetails: (loan) =>
    loan.executeUpdate(updateLoanDetailsUpdate, {
      args: [
        {
          by: customer,
          terms: { productName: 'Personal 12', amount: '1800.00', term: 24 },
          secured: false,
          currency: 'EUR',
        },
      ],
    }),
  changeCollaterals: addCollateral,
  updateCoApplicant: (loan) =>
    loan.executeUpdate(updateCoApplicantUpdate, {
      args: [{ by: customer, coApplicant: { firstName: 'John', lastName: 'Doe' } }],
    }),
  requestRollover: (loan) => loan.executeUpdate(requestRolloverUpdate, { args: [{ by: customer }] }),
  cancelRollover: (loan) => loan.executeUpdate(cancelRolloverUpdate, { args: [{ by: customer }] }),
  enableAutocharge: (loan) =>
    loan.executeUpdate(setAutochargeUpdate, { args: [{ by: management, enabled: true, comment: 'asked' }] }),
  disableAutocharge: (loan) =>
    loan.executeUpdate(setAutochargeUpdate, { args: [{ by: management, enabled: false, comment: 'asked' }] }),
};

/** The facts of a state, as the workflow knows them. */
const factsOf = (state: Reachable) => ({
  secured: state.startsWith('Collateral'),
  collateralCount: state === 'Collateral with a collateral' ? 1 : 0,
  offerAccepted:
    !state.includes('referred') &&
    ['Waiting for approval (offer accepted)', 'Approved', 'Active'].some((s) => state.startsWith(s)),
  rolloverRequested: state === 'Active with a rollover requested',
  multipleOffers: false,
  amountMatches: true,
  documentsSigned: true,
  bureau: 'approve' as const,
});

async function refusalOf(run: Promise<unknown>): Promise<string | undefined> {
  try {
    await run;
    return undefined;
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure)
      return error.cause.type ?? '?';
    throw error;
  }
}

describe('each Update in each status the loan can be brought to', () => {
  for (const state of reachable) {
    const status = statusOfState(state);
    const expected = Object.entries(operations).map(([operation, run]) => ({
      operation: operation as LoanOperation,
      run: run as (loan: Loan) => Promise<LoanSnapshot>,
      step: stepOf(operation as LoanOperation, status, factsOf(state)),
    }));

    it(`${state}: every refused operation is refused by the validator, the loan unchanged`, async () => {
      const loan = await loanIn(state);
      const refused = expected.filter(({ step }) => !step.allowed);
      for (const { operation, run, step } of refused) {
        expect(await refusalOf(run(loan)), `${operation} in ${state}`).toBe(
          step.allowed ? undefined : step.type,
        );
      }
      // Still where it was: a refused Update leaves no trace.
      expect((await lastSnapshot(loan)).status).toBe(status);
      expect((await loan.describe()).status.name).toBe('RUNNING');
    });

    for (const { operation, run, step } of expected.filter((candidate) => candidate.step.allowed)) {
      if (!step.allowed) continue;
      const next = step.next === 'automatic decision' ? 'Offer confirmation' : statusAfter(status, step.next);
      it(`${state}: ${operation} → ${next}`, async () => {
        const loan = await loanIn(state);
        const snapshot = await run(loan);
        expect(snapshot.status).toBe(next);
        const last = harness.records.get(snapshot.loanId)?.at(-1);
        expect(last?.snapshot).toEqual(snapshot);
      });
    }
  }
});

describe('the decision', () => {
  it('bureau declines → Rejected: recorded with the system as actor, and the workflow ends', async () => {
    const { loan } = await startLoan();
    const decided = await harness.decided(
      loan.executeUpdate(processUpdate, { args: [{ by: customer, applicant: applicant('Decline') }] }),
    );
    expect(decided.status).toBe('Rejected');
    expect(decided.decision?.outcome).toBe('decline');
    expect(await loan.result()).toBe('Rejected');
    const history = (harness.records.get(decided.loanId) ?? []).flatMap((record) =>
      record.change ? [record.change] : [],
    );
    expect(history.map((change) => [change.status, change.by.role])).toEqual([
      ['Origination', 'customer'],
      ['Origination', 'customer'],
      ['Rejected', 'system'],
    ]);
  });

  it('Process answers once its request is recorded; the decision follows, a second Process meanwhile refused', async () => {
    const { loan } = await startLoan();
    const started = Date.now();
    const processing = loan.executeUpdate(processUpdate, {
      args: [{ by: customer, applicant: applicant('Later') }],
    });
    const answered = await processing;
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(answered).toMatchObject({ status: 'Origination', decision: null, offers: [] });
    expect(await refusalOf(operations.process!(loan))).toBe(LoanRefusal.decisionInProgress);
    const decided = await harness.decided(processing);
    expect(decided).toMatchObject({ status: 'Offer confirmation', decision: { outcome: 'approve' } });
  });

  it('bureau refers → Waiting for approval; approval gives the offer (Offer confirmation)', async () => {
    const { loan } = await startLoan();
    const referred = await harness.decided(
      loan.executeUpdate(processUpdate, { args: [{ by: customer, applicant: applicant('Refer') }] }),
    );
    expect(referred.status).toBe('Waiting for approval');
    expect(referred.offers).toEqual([]);
    const approved = await loan.executeUpdate(approveUpdate, {
      args: [{ by: management, comments: 'checked by phone' }],
    });
    expect(approved.status).toBe('Offer confirmation');
    expect(approved.offers).toHaveLength(1);
  });

  it('the bureau does not answer → referred (Waiting for approval), not failed', async () => {
    const { loan } = await startLoan({ bureau: { requestTimeoutMs: 500, attempts: 2 } });
    const referred = await harness.decided(
      loan.executeUpdate(processUpdate, { args: [{ by: customer, applicant: applicant('Slow') }] }),
    );
    expect(referred.status).toBe('Waiting for approval');
    expect(referred.decision?.outcome).toBe('unavailable');
    expect(checks.get(referred.loanId)).toBe(2);
  });

  it('multiple offers: two offers; accepting the second takes its amount', async () => {
    const loan = await loanIn('Offer confirmation', true);
    const [first, second] = (await lastSnapshot(loan)).offers.map((offer) => offer.offerId);
    expect(first).toMatch(/-1$/);
    expect(second).toMatch(/-2$/);
    const accepted = await loan.executeUpdate(acceptOfferUpdate, {
      args: [{ by: customer, offerId: second }],
    });
    expect(accepted).toMatchObject({
      status: 'Waiting for approval',
      acceptedOfferId: second,
      amount: '1200.00',
    });
  });

  it('a secured loan in Collateral without a collateral: collateral_required; with one it is decided', async () => {
    const loan = await loanIn('Collateral');
    expect(await refusalOf(operations.process!(loan))).toBe(LoanRefusal.collateralRequired);
    await addCollateral(loan);
    expect((await operations.process!(loan)).status).toBe('Offer confirmation');
  });

  it('an unknown offer is refused while in Offer confirmation', async () => {
    const loan = await loanIn('Offer confirmation');
    expect(
      await refusalOf(loan.executeUpdate(acceptOfferUpdate, { args: [{ by: customer, offerId: 'nope' }] })),
    ).toBe(LoanRefusal.offerNotFound);
  });

  it('a disbursement of another amount is refused', async () => {
    const loan = await loanIn('Approved');
    const wrong = loan.executeUpdate(registerDisbursementUpdate, {
      args: [{ by: management, disbursement: { amount: '1499.99', date: '2026-03-01' } }],
    });
    expect(await refusalOf(wrong)).toBe(LoanRefusal.disbursementAmountMismatch);
  });

  it('a loan registered Repaid is recorded and ends at once', async () => {
    const { loan, first } = await startLoan({
      status: 'Repaid',
      disbursement: { amount: '1500.00', date: '2025-01-01' },
      // As the API decides Repaid: the amount repaid covers the schedule (decision 0043).
      repaidAmount: '2000.00',
    });
    expect(first.status).toBe('Repaid');
    expect(await loan.result()).toBe('Repaid');
  });
});

/** The loan as its activities last recorded it. */
async function lastSnapshot(loan: Loan): Promise<LoanSnapshot> {
  const loanId = loan.workflowId.split('-').at(-1) ?? '';
  const last = harness.records.get(loanId)?.at(-1)?.snapshot;
  if (!last) throw new Error(`no record of ${loan.workflowId}`);
  return last;
}
