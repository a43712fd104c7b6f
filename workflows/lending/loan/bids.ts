import { setHandler } from '@temporalio/workflow';
import { type BidRequest, bidRefusal, bidsAfter, investedBids } from '../../../domain/lending/bids.ts';
import { bidUpdate } from '../../../domain/lending/loan-process.ts';
import { type LoanState, now, refuse } from './state.ts';

/**
 * Investor funding (decision 0052): while the loan is open for funding (domain/lending/bids.ts) it
 * takes investors' bids until they cover its amount. Each bid is one `bid` Update: its validator
 * refuses what the covering check refuses, and its handler checks again and changes the bids before
 * its first await, so bids arriving together are decided one after another by the workflow and never
 * fund the loan beyond its amount. A withdrawn or reduced bid frees its amount. At disbursement the
 * active bids become the loan's investments (`investBids`).
 */
export function handleBids(state: LoanState): void {
  const { loan } = state;
  const check = (bid: BidRequest) => {
    const refusal = bidRefusal(loan, loan.funding?.bids ?? [], bid);
    if (refusal) refuse(refusal.type, refusal.message);
  };

  setHandler(
    bidUpdate,
    ({ bid }) => {
      check(bid);
      loan.funding = { ...loan.funding, bids: bidsAfter(loan.funding?.bids ?? [], bid, now()) };
      return state.record();
    },
    { validator: ({ bid }) => check(bid) },
  );
}

/** At disbursement: the active bids become the loan's investments (a loan without bids has none). */
export function investBids(state: LoanState, date: string): void {
  const { funding } = state.loan;
  if (!funding) return;
  state.loan.funding = { bids: investedBids(funding.bids, now()), investedOn: date };
}
