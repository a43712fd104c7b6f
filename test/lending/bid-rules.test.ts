import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import {
  availableAmount,
  BidRefusal,
  type BidRequest,
  bidRefusal,
  bidsAfter,
  fundedAmount,
  investedBids,
  type LoanBid,
  shareRepayment,
} from '../../domain/lending/bids.ts';
import { preferenceConflicts } from '../../domain/lending/investors.ts';

/** The funding rules (domain/lending/bids.ts, decision 0052): the covering check and pro-rata sharing. */

const AT = '2026-11-27T10:00:00.000Z';
const loan = { status: 'Approved' as const, amount: '1000.00' };
const bid = (
  bidId: string,
  amount: string,
  status: LoanBid['status'] = 'active',
  investorId = 'usr_a',
): LoanBid => ({
  bidId,
  investorId,
  amount,
  status,
  placedAt: AT,
  updatedAt: AT,
});
const submit = (bidId: string, amount: string, investorId = 'usr_a'): BidRequest => ({
  action: 'submit',
  bidId,
  investorId,
  amount,
});

describe('the covering check', () => {
  it('takes bids until they cover the amount, never beyond', () => {
    let bids: LoanBid[] = [];
    for (const [id, amount] of [
      ['b1', '400.00'],
      ['b2', '599.99'],
      ['b3', '0.01'],
    ] as const) {
      expect(bidRefusal(loan, bids, submit(id, amount))).toBeUndefined();
      bids = bidsAfter(bids, submit(id, amount), AT);
    }
    expect(fundedAmount(bids)).toBe('1000.00');
    expect(availableAmount(loan.amount, bids)).toBe('0.00');
    expect(bidRefusal(loan, bids, submit('b4', '0.01'))?.type).toBe(BidRefusal.overFunded);
  });

  it('counts only active bids: a withdrawn or reduced bid frees its amount', () => {
    let bids = [bid('b1', '600.00'), bid('b2', '400.00')];
    expect(bidRefusal(loan, bids, submit('b3', '100.00'))?.type).toBe(BidRefusal.overFunded);
    bids = bidsAfter(bids, { action: 'change', bidId: 'b1', investorId: 'usr_a', amount: '500.00' }, AT);
    expect(availableAmount(loan.amount, bids)).toBe('100.00');
    bids = bidsAfter(bids, { action: 'withdraw', bidId: 'b2', investorId: 'usr_a' }, AT);
    expect(availableAmount(loan.amount, bids)).toBe('500.00');
    expect(bidRefusal(loan, bids, submit('b3', '500.00'))).toBeUndefined();
  });

  it('checks a change against the other bids, not against itself', () => {
    const bids = [bid('b1', '600.00'), bid('b2', '400.00')];
    const change = (amount: string): BidRequest => ({
      action: 'change',
      bidId: 'b1',
      investorId: 'usr_a',
      amount,
    });
    expect(bidRefusal(loan, bids, change('600.00'))).toBeUndefined();
    expect(bidRefusal(loan, bids, change('600.01'))?.type).toBe(BidRefusal.overFunded);
  });

  it('refuses another investor’s bid as not found, a closed bid, a closed loan and a bad amount', () => {
    const bids = [bid('b1', '100.00'), bid('b2', '100.00', 'withdrawn')];
    const withdraw = (bidId: string, investorId: string): BidRequest => ({
      action: 'withdraw',
      bidId,
      investorId,
    });
    expect(bidRefusal(loan, bids, withdraw('b1', 'usr_b'))?.type).toBe(BidRefusal.bidNotFound);
    expect(bidRefusal(loan, bids, withdraw('b9', 'usr_a'))?.type).toBe(BidRefusal.bidNotFound);
    expect(bidRefusal(loan, bids, withdraw('b2', 'usr_a'))?.type).toBe(BidRefusal.bidClosed);
    expect(bidRefusal({ ...loan, status: 'Active' }, bids, submit('b3', '1.00'))?.type).toBe(
      BidRefusal.notOpen,
    );
    expect(bidRefusal(loan, bids, submit('b3', '0'))?.type).toBe(BidRefusal.invalidAmount);
    expect(bidRefusal(loan, bids, submit('b3', '1.001'))?.type).toBe(BidRefusal.invalidAmount);
  });

  it('takes a retried Submit as the bid it made', () => {
    const bids = bidsAfter([], submit('b1', '1000.00'), AT);
    expect(bidRefusal(loan, bids, submit('b1', '1000.00'))).toBeUndefined();
    expect(bidsAfter(bids, submit('b1', '1000.00'), AT)).toEqual(bids);
  });

  it('makes the active bids investments at disbursement', () => {
    const bids = investedBids([bid('b1', '100.00'), bid('b2', '50.00', 'withdrawn')], AT);
    expect(bids.map((held) => held.status)).toEqual(['invested', 'withdrawn']);
  });
});

describe('pro-rata sharing of a repayment', () => {
  const sum = (shares: { amount: string }[]) =>
    shares.reduce((total, share) => total.plus(share.amount), new Decimal(0)).toFixed(2);

  it('shares exactly among investments covering the loan', () => {
    const shares = shareRepayment('100.00', '300.00', [
      { bidId: 'a', amount: '100.00' },
      { bidId: 'b', amount: '100.00' },
      { bidId: 'c', amount: '100.00' },
    ]);
    // 33.333… each: the one cent left goes to the first (equal fractions: the bids' order).
    expect(shares).toEqual([
      { bidId: 'a', amount: '33.34' },
      { bidId: 'b', amount: '33.33' },
      { bidId: 'c', amount: '33.33' },
    ]);
    expect(sum(shares)).toBe('100.00');
  });

  it('gives the left-over cents to the largest fractions, deterministically', () => {
    const investments = [
      { bidId: 'a', amount: '1.00' },
      { bidId: 'b', amount: '2.00' },
      { bidId: 'c', amount: '4.00' },
    ];
    const shares = shareRepayment('1.00', '7.00', investments);
    // 14.285…, 28.571…, 57.142… cents: 14 + 28 + 57 = 99, the cent to b (.571 is the largest fraction).
    expect(shares.map((share) => share.amount)).toEqual(['0.14', '0.29', '0.57']);
    expect(sum(shares)).toBe('1.00');
    expect(shareRepayment('1.00', '7.00', investments)).toEqual(shares);
  });

  it('leaves the lender its part of a loan investors did not fully cover', () => {
    const shares = shareRepayment('250.00', '1000.00', [
      { bidId: 'a', amount: '300.00' },
      { bidId: 'b', amount: '200.00' },
    ]);
    expect(shares).toEqual([
      { bidId: 'a', amount: '75.00' },
      { bidId: 'b', amount: '50.00' },
    ]);
  });

  it('always adds up to the repayment when covered (many odd shares)', () => {
    const investments = Array.from({ length: 50 }, (_, i) => ({
      bidId: `b${i}`,
      amount: `${(i % 7) + 1}.13`,
    }));
    const total = investments.reduce((t, held) => t.plus(held.amount), new Decimal(0)).toFixed(2);
    for (const repayment of ['0.01', '0.49', '123.45', '9999.99']) {
      const shares = shareRepayment(repayment, total, investments);
      expect(sum(shares)).toBe(repayment);
      for (const share of shares) expect(share.amount).toMatch(/^\d+\.\d{2}$/);
    }
  });

  it('shares nothing without investments', () => {
    expect(shareRepayment('10.00', '100.00', [])).toEqual([]);
  });
});

describe('investor preferences', () => {
  it('names the upper bound of a range the wrong way round', () => {
    expect(preferenceConflicts({ minAmount: '500', maxAmount: '100', minTerm: 12, maxTerm: 6 })).toEqual([
      { field: 'maxAmount', message: 'must not be less than minAmount' },
      { field: 'maxTerm', message: 'must not be less than minTerm' },
    ]);
    expect(preferenceConflicts({ minAmount: '100', maxAmount: '100' })).toEqual([]);
  });
});
