import { Decimal } from 'decimal.js';
import type { LoanStatus } from './loan-lifecycle.ts';

/**
 * Investor funding of a loan (decision 0052): the rules the loan's workflow decides bids by and the
 * pro-rata sharing of repayments among the loan's investments. Pure (no I/O, no clock): safe in
 * workflow code, used by the read-model writes and the tests alike.
 *
 * Design: a loan is open for funding from its accepted offer (Waiting for approval) until its
 * disbursement (Approved, until it is paid out); it accepts bids until they cover its amount. A bid
 * withdrawn or reduced frees its amount. At disbursement the bids then active (never more than the
 * amount) become the loan's investments; the part no investor covered is the lender's own.
 */

/** The statuses in which a loan takes bids (its Opportunities). */
export const BIDDING_STATUSES: readonly LoanStatus[] = ['Waiting for approval', 'Approved'];
export const openForBids = (status: LoanStatus) => BIDDING_STATUSES.includes(status);

/** A bid's life: active (counts towards the loan's funding), withdrawn, or invested at disbursement. */
export const bidStatuses = ['active', 'withdrawn', 'invested'] as const;
export type BidStatus = (typeof bidStatuses)[number];

export interface LoanBid {
  bidId: string;
  /** The investor's user id. */
  investorId: string;
  /** Decimal string with 2 decimals. */
  amount: string;
  status: BidStatus;
  placedAt: string;
  updatedAt: string;
}

/** The loan's funding as its workflow holds it (absent until its first bid). */
export interface LoanBids {
  bids: LoanBid[];
  /** The disbursement date the active bids became investments. */
  investedOn?: string | undefined;
}

/** What an investor asks of a loan's funding (the `bid` Update). */
export type BidRequest =
  | { action: 'submit'; bidId: string; investorId: string; amount: string }
  | { action: 'change'; bidId: string; investorId: string; amount: string }
  | { action: 'withdraw'; bidId: string; investorId: string };

export const BidRefusal = {
  /** The loan is not (or no longer) open for funding. */
  notOpen: 'loan_not_open_for_funding',
  /** The bid would take the loan's funding beyond its amount. */
  overFunded: 'funding_exceeds_amount',
  /** No such bid of this investor on this loan. */
  bidNotFound: 'bid_not_found',
  /** The bid was withdrawn or has become an investment: it changes no more. */
  bidClosed: 'bid_closed',
  invalidAmount: 'invalid_bid_amount',
} as const;

export interface BidRefusalOf {
  type: (typeof BidRefusal)[keyof typeof BidRefusal];
  message: string;
}

const AMOUNT = /^\d{1,13}(\.\d{1,2})?$/;

/** The sum of the active bids: what investors now cover of the loan. */
export function fundedAmount(bids: readonly LoanBid[]): string {
  return bids
    .filter((bid) => bid.status === 'active')
    .reduce((sum, bid) => sum.plus(bid.amount), new Decimal(0))
    .toFixed(2);
}

/** What is still open to bid on a loan of `loanAmount` (never negative). */
export function availableAmount(loanAmount: string, bids: readonly LoanBid[]): string {
  return Decimal.max(0, new Decimal(loanAmount).minus(fundedAmount(bids))).toFixed(2);
}

/**
 * Why the loan refuses `request` (undefined: it takes it). The covering check: the active bids but
 * the one being changed, plus the new amount, never exceed the loan's amount.
 */
export function bidRefusal(
  loan: { status: LoanStatus; amount: string },
  bids: readonly LoanBid[],
  request: BidRequest,
): BidRefusalOf | undefined {
  if (!openForBids(loan.status))
    return {
      type: BidRefusal.notOpen,
      message: `the loan is ${loan.status}: it takes bids in ${BIDDING_STATUSES.join(' or ')} only`,
    };
  const held = bids.find((bid) => bid.bidId === request.bidId);
  if (request.action !== 'submit') {
    if (!held || held.investorId !== request.investorId)
      return { type: BidRefusal.bidNotFound, message: `bid ${request.bidId} not found` };
    if (held.status !== 'active')
      return { type: BidRefusal.bidClosed, message: `bid ${request.bidId} is ${held.status}` };
    if (request.action === 'withdraw') return undefined;
  } else if (held) return undefined; // a retried Submit: the bid it made
  if (!AMOUNT.test(request.amount) || new Decimal(request.amount).lte(0))
    return {
      type: BidRefusal.invalidAmount,
      message: 'must be a positive amount with at most 2 decimals',
    };
  const others = bids.filter((bid) => bid.bidId !== request.bidId);
  const available = availableAmount(loan.amount, others);
  if (new Decimal(request.amount).gt(available))
    return {
      type: BidRefusal.overFunded,
      message: `the loan has ${available} left to fund; a bid of ${new Decimal(request.amount).toFixed(2)} would exceed its amount of ${new Decimal(loan.amount).toFixed(2)}`,
    };
  return undefined;
}

/** The bids after `request` (which bidRefusal took), at `at`. */
export function bidsAfter(bids: readonly LoanBid[], request: BidRequest, at: string): LoanBid[] {
  if (request.action === 'submit') {
    if (bids.some((bid) => bid.bidId === request.bidId)) return [...bids];
    const amount = new Decimal(request.amount).toFixed(2);
    const { bidId, investorId } = request;
    return [...bids, { bidId, investorId, amount, status: 'active', placedAt: at, updatedAt: at }];
  }
  return bids.map((bid) => {
    if (bid.bidId !== request.bidId) return bid;
    return request.action === 'withdraw'
      ? { ...bid, status: 'withdrawn', updatedAt: at }
      : { ...bid, amount: new Decimal(request.amount).toFixed(2), updatedAt: at };
  });
}

/** At disbursement: the active bids become investments (the others stay as they were). */
export function investedBids(bids: readonly LoanBid[], at: string): LoanBid[] {
  return bids.map((bid) => (bid.status === 'active' ? { ...bid, status: 'invested', updatedAt: at } : bid));
}

/** One investment's part of a repayment. */
export interface RepaymentShare {
  bidId: string;
  amount: string;
}

/**
 * Shares `repayment` among the investments pro rata to their amounts over the loan's amount, in whole
 * cents: each gets its exact part rounded down, then the cents left over go one each to the largest
 * fractional parts (ties: in the order of the investments, i.e. of the bids). The lender's own part
 * (what no investor covered) takes part in the allocation as a last, unnamed share; it is left out of
 * the answer. The shares plus the lender's part always add up to the repayment exactly.
 */
export function shareRepayment(
  repayment: string,
  loanAmount: string,
  investments: readonly { bidId: string; amount: string }[],
): RepaymentShare[] {
  const total = new Decimal(loanAmount);
  if (total.lte(0) || investments.length === 0) return [];
  const cents = new Decimal(repayment).mul(100);
  const invested = investments.reduce((sum, held) => sum.plus(held.amount), new Decimal(0));
  const weights = [
    ...investments.map((held) => new Decimal(held.amount)),
    Decimal.max(0, total.minus(invested)),
  ];
  const exact = weights.map((weight) => cents.mul(weight).div(total));
  const floors = exact.map((part) => part.floor());
  let left = cents.minus(floors.reduce((sum, part) => sum.plus(part), new Decimal(0))).toNumber();
  const order = exact
    .map((part, index) => ({ index, fraction: part.minus(floors[index] as Decimal) }))
    .sort((a, b) => b.fraction.comparedTo(a.fraction) || a.index - b.index);
  for (const { index } of order) {
    if (left <= 0) break;
    floors[index] = (floors[index] as Decimal).plus(1);
    left -= 1;
  }
  return investments.map((held, index) => ({
    bidId: held.bidId,
    amount: (floors[index] as Decimal).div(100).toFixed(2),
  }));
}
