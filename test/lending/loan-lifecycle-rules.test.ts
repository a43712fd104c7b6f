import { describe, expect, it } from 'vitest';
import {
  closedLoanStatuses,
  initialStatusOf,
  type LoanCondition,
  type LoanFacts,
  LoanRefusal,
  loanOperations,
  loanStatuses,
  loanTransitions,
  statusesOf,
  stepOf,
} from '../../domain/lending/loan-lifecycle.ts';
import { offersOf, sameAmount, schedulePosition } from '../../domain/lending/loan-process.ts';

/**
 * The loan's transition table (domain/lending/loan-lifecycle.ts, decision 0039) as pure rules: every row
 * moves the loan where it says, every operation is refused in every other status with
 * `invalid_loan_status` naming that status, and the spec's own rows are in the table as the spec has them.
 */

/** Facts under which a condition holds. */
const factsFor: Record<LoanCondition, LoanFacts> = {
  detailsIncomplete: { detailsComplete: false },
  detailsComplete: { detailsComplete: true },
  unsecured: { secured: false },
  secured: { secured: true },
  collateralRegistered: { secured: true, collateralCount: 1 },
  bureauApproves: { bureau: 'approve' },
  bureauDeclines: { bureau: 'decline' },
  bureauRefers: { bureau: 'refer' },
  bureauUnavailable: { bureau: 'unavailable' },
  multipleOffers: { multipleOffers: true },
  offerAccepted: { offerAccepted: true },
  offerAcceptedDocumentsComplete: {
    offerAccepted: true,
    documentsSigned: true,
    requiredDocumentsAttached: true,
  },
  referred: { offerAccepted: false },
  amountEqualsLoanAmount: { amountMatches: true },
  noRolloverRequested: { rolloverRequested: false },
  rolloverRequested: { rolloverRequested: true },
  scheduleCurrent: { schedule: 'current' },
  instalmentOverdue: { schedule: 'overdue' },
  scheduleRepaid: { schedule: 'repaid' },
};

describe('the transition table, row by row', () => {
  for (const row of loanTransitions) {
    const when = row.condition ? ` when ${row.condition}` : '';
    if (row.from === 'new') {
      it(`${row.operation}: a new loan${when} → ${row.next} (${row.basis})`, () => {
        const operation = row.operation as 'create' | 'createWithDisbursement';
        expect(initialStatusOf(operation, row.condition ? factsFor[row.condition] : {})).toBe(row.next);
      });
      continue;
    }
    for (const status of row.from) {
      it(`${row.operation}: ${status}${when} → ${row.next} (${row.basis})`, () => {
        const step = stepOf(row.operation, status, row.condition ? factsFor[row.condition] : {});
        expect(step).toEqual({ allowed: true, row, next: row.next });
      });
    }
  }
});

describe('every operation outside its statuses', () => {
  for (const operation of loanOperations) {
    const allowed = statusesOf(operation);
    if (operation === 'create' || operation === 'createWithDisbursement') continue;
    for (const status of loanStatuses.filter((candidate) => !allowed.includes(candidate))) {
      it(`${operation} in ${status}: 409 invalid_loan_status naming ${status}`, () => {
        const step = stepOf(operation, status, {});
        expect(step.allowed).toBe(false);
        if (step.allowed) return;
        expect(step.type).toBe(LoanRefusal.invalidStatus);
        expect(step.message).toContain(`status ${status}`);
      });
    }
  }
});

describe("the spec's rows", () => {
  const rowsOf = (operation: string) => loanTransitions.filter((row) => row.operation === operation);

  it('Create: Pre-Origination without complete details, Origination with them', () => {
    expect(initialStatusOf('create', { detailsComplete: false })).toBe('Pre-Origination');
    expect(initialStatusOf('create', { detailsComplete: true })).toBe('Origination');
  });

  it('management Create with one disbursement: Active, Past Due or Repaid', () => {
    expect(initialStatusOf('createWithDisbursement', { schedule: 'current' })).toBe('Active');
    expect(initialStatusOf('createWithDisbursement', { schedule: 'overdue' })).toBe('Past Due');
    expect(initialStatusOf('createWithDisbursement', { schedule: 'repaid' })).toBe('Repaid');
  });

  it('Process only from Origination or Reprocessing (Collateral: a design row); secured → Collateral', () => {
    const specRows = rowsOf('process').filter((row) => row.basis === 'spec');
    expect(specRows.map((row) => row.from)).toEqual([
      ['Origination', 'Reprocessing'],
      ['Origination', 'Reprocessing'],
    ]);
    expect(stepOf('process', 'Origination', { secured: true })).toMatchObject({ next: 'Collateral' });
    expect(stepOf('process', 'Reprocessing', { secured: false })).toMatchObject({
      next: 'automatic decision',
    });
    expect(statusesOf('process')).toEqual(['Origination', 'Reprocessing', 'Collateral']);
  });

  it('Accept, Decline and LoanOffer only in Offer confirmation; LoanOffers needs multiple offers', () => {
    for (const operation of ['acceptOffer', 'declineOffer', 'readOffer', 'readOffers'] as const) {
      expect(statusesOf(operation)).toEqual(['Offer confirmation']);
    }
    expect(stepOf('readOffers', 'Offer confirmation', { multipleOffers: false })).toMatchObject({
      allowed: false,
      type: LoanRefusal.multipleOffersDisabled,
    });
  });

  it('Approve only in Waiting for approval; Disbursements only in Approved with the loan amount', () => {
    expect(statusesOf('approve')).toEqual(['Waiting for approval']);
    expect(statusesOf('registerDisbursement')).toEqual(['Approved']);
    expect(stepOf('registerDisbursement', 'Approved', { amountMatches: false })).toMatchObject({
      allowed: false,
      type: LoanRefusal.disbursementAmountMismatch,
    });
  });
});

describe('refusals by condition', () => {
  it('a secured loan in Collateral is processed only once a collateral is registered', () => {
    expect(stepOf('process', 'Collateral', { secured: true, collateralCount: 0 })).toMatchObject({
      allowed: false,
      type: LoanRefusal.collateralRequired,
    });
  });

  it('a rollover is requested once, and cancelled only when requested', () => {
    expect(stepOf('requestRollover', 'Active', { rolloverRequested: true })).toMatchObject({
      allowed: false,
      type: LoanRefusal.rolloverAlreadyRequested,
    });
    expect(stepOf('cancelRollover', 'Past Due', { rolloverRequested: false })).toMatchObject({
      allowed: false,
      type: LoanRefusal.rolloverNotRequested,
    });
  });

  it('no operation moves a closed loan (but a repayment correction or reversal of a Repaid one), and every status has a way in', () => {
    // Decision 0043: an edit or reversal of a Repaid loan's repayment may bring it back while its workflow runs;
    // decision 0069: so may the bank taking a submitted repayment's transfer back.
    const corrections = ['correctRepayment', 'repaymentCorrected', 'submittedRepaymentReversed'];
    for (const status of closedLoanStatuses) {
      for (const operation of loanOperations) {
        const allowed = stepOf(operation, status, { ...factsFor.offerAccepted, schedule: 'current' }).allowed;
        expect(allowed, `${operation} in ${status}`).toBe(
          status === 'Repaid' && corrections.includes(operation),
        );
      }
    }
    const reachable = new Set(loanTransitions.map((row) => row.next));
    for (const status of loanStatuses) expect(reachable.has(status), status).toBe(true);
  });
});

describe('pure helpers of the loan process', () => {
  it('offers: the terms applied for; with multiple offers also 80% of the amount', () => {
    const terms = { productName: 'Personal', amount: '1500.00', term: 12 };
    expect(offersOf('42', terms, false)).toEqual([
      { offerId: '42-1', productName: 'Personal', amount: '1500.00', term: 12 },
    ]);
    expect(offersOf('42', terms, true)).toEqual([
      { offerId: '42-1', productName: 'Personal', amount: '1500.00', term: 12 },
      { offerId: '42-2', productName: 'Personal', amount: '1200.00', term: 12 },
    ]);
  });

  it('amounts compare by value', () => {
    expect(sameAmount('1500', '1500.00')).toBe(true);
    expect(sameAmount('1500.01', '1500.00')).toBe(false);
    expect(sameAmount('abc', '1500.00')).toBe(false);
  });

  it('schedule position: repaid, overdue, current', () => {
    const instalments = [
      { dueDate: '2026-01-10', total: '100.00' },
      { dueDate: '2026-02-10', total: '100.00' },
      { dueDate: '2026-03-10', total: '100.00' },
    ];
    expect(schedulePosition(instalments, '300.00', '2026-02-15')).toBe('repaid');
    expect(schedulePosition(instalments, '150.00', '2026-02-15')).toBe('overdue');
    expect(schedulePosition(instalments, '200.00', '2026-02-15')).toBe('current');
    // Due on the day itself is not overdue yet.
    expect(schedulePosition(instalments, '0', '2026-01-10')).toBe('current');
    expect(schedulePosition(instalments, '0', '2026-01-11')).toBe('overdue');
  });
});
