import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Decimal } from 'decimal.js';
import { and, asc, desc, eq } from 'drizzle-orm';
import { newRecordId } from '../../credentials/lending/tenants.ts';
import type { Database } from '../../db/client.ts';
import { lendingInvestorBids } from '../../db/schema/lending-investors.ts';
import {
  BIDDING_STATUSES,
  BidRefusal,
  type BidRequest,
  type BidStatus,
  openForBids,
} from '../../domain/lending/bids.ts';
import { minorUnitProblem } from '../../domain/lending/credit-products.ts';
import { bidUpdate, loanWorkflowId } from '../../domain/lending/loan-process.ts';
import type { lendingLoan } from '../../workflows/lending/loan.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { type InvestorCaller, investorRow } from './investors.ts';
import { findLoan } from './loan/record.ts';

/**
 * An investor's bids on loans open to them (decision 0052): each submitted, changed or withdrawn bid is
 * decided by the loan's workflow (the `bid` Update, workflows/lending/loan/bids.ts) and read from the
 * read model its recordLoan activity writes (activities/lending/bids.ts). Another investor's bid, like
 * another tenant's, is not found.
 */

type Deps = Pick<UseCaseDeps, 'db' | 'temporal'>;

// --- bids --------------------------------------------------------------------------------------------

export interface BidView {
  /** The bid's id, `id` as the spec names investor objects' keys. */
  id: string;
  loanId: string;
  amount: string;
  status: BidStatus;
  placedAt: string;
  updatedAt: string;
  investedOn: string | null;
}

type BidRow = typeof lendingInvestorBids.$inferSelect;
const bidView = (row: BidRow): BidView => ({
  id: row.bidId,
  loanId: row.loanId,
  amount: row.amount,
  status: row.status,
  placedAt: row.placedAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
  investedOn: row.investedOn,
});

const ownBid = (caller: InvestorCaller, bidId: string) =>
  and(
    eq(lendingInvestorBids.tenantId, caller.tenantId),
    eq(lendingInvestorBids.investorId, caller.investorId),
    eq(lendingInvestorBids.bidId, bidId),
  );

async function bidRow(db: Database, caller: InvestorCaller, bidId: string): Promise<BidRow> {
  const [row] = await db.select().from(lendingInvestorBids).where(ownBid(caller, bidId));
  if (!row) throw Refusal.notFound('Bid');
  return row;
}

/** Investor/Bids: the investor's bids, newest first (a list answers `{ items }`, decision 0086). */
export async function listBids(
  { db }: Pick<UseCaseDeps, 'db'>,
  { caller }: { caller: InvestorCaller },
): Promise<{ items: BidView[] }> {
  const rows = await db
    .select()
    .from(lendingInvestorBids)
    .where(
      and(
        eq(lendingInvestorBids.tenantId, caller.tenantId),
        eq(lendingInvestorBids.investorId, caller.investorId),
      ),
    )
    .orderBy(desc(lendingInvestorBids.placedAt), asc(lendingInvestorBids.bidId));
  return { items: rows.map(bidView) };
}

export async function readBid(
  { db }: Pick<UseCaseDeps, 'db'>,
  { caller, bidId }: { caller: InvestorCaller; bidId: string },
) {
  return bidView(await bidRow(db, caller, bidId));
}

/** The refusals of the `bid` Update as the API answers them. */
const BID_REFUSALS: Record<string, (message: string) => Refusal> = {
  [BidRefusal.notOpen]: (message) => Refusal.conflict(BidRefusal.notOpen, message),
  [BidRefusal.overFunded]: (message) => Refusal.conflict(BidRefusal.overFunded, message),
  [BidRefusal.bidClosed]: (message) => Refusal.conflict(BidRefusal.bidClosed, message),
  [BidRefusal.bidNotFound]: () => Refusal.notFound('Bid'),
  [BidRefusal.invalidAmount]: (message) => Refusal.field('amount', message),
};

const notOpen = (status: string) =>
  Refusal.conflict(
    BidRefusal.notOpen,
    `the loan is ${status}: it takes bids in ${BIDDING_STATUSES.join(' or ')} only`,
  );

/** Sends the `bid` Update to the loan's workflow, which decides it; answers the bid as recorded. */
async function bid(
  deps: Deps,
  caller: InvestorCaller,
  loanId: string,
  request: BidRequest,
): Promise<BidView> {
  const { db, temporal } = deps;
  const loan = await findLoan(db, caller.tenantId, loanId);
  if (!loan) throw Refusal.notFound('Loan');
  if (!openForBids(loan.status)) throw notOpen(loan.status);
  // The API takes up to 2 decimals; the loan's currency may have fewer (JPY): refused, never rounded.
  const tooPrecise = 'amount' in request ? minorUnitProblem(request.amount, loan.currency) : undefined;
  if (tooPrecise) throw Refusal.field('amount', tooPrecise);
  try {
    await temporal.workflow
      .getHandle<typeof lendingLoan>(loanWorkflowId(caller.tenantId, loanId))
      .executeUpdate(bidUpdate, { args: [{ bid: request }] });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      const refusal = BID_REFUSALS[error.cause.type ?? ''];
      if (refusal) throw refusal(error.cause.message);
    }
    if (error instanceof WorkflowNotFoundError)
      throw notOpen((await findLoan(db, caller.tenantId, loanId))?.status ?? loan.status);
    throw error;
  }
  return bidView(await bidRow(db, caller, request.bidId));
}

/** The investor's own most per bid (Preferences `maxBid`). */
async function refuseAboveMaxBid(db: Database, caller: InvestorCaller, amount: string) {
  const { maxBid } = (await investorRow(db, caller)).preferences;
  if (maxBid !== undefined && new Decimal(amount).gt(maxBid))
    throw Refusal.field('amount', `must not exceed your preferences' maxBid of ${maxBid}`);
}

/** Investor/Bids/Submit: a new bid on a loan open for funding. */
export async function submitBid(
  deps: Deps,
  { caller, ...input }: { caller: InvestorCaller; loanId: string; amount: string },
): Promise<BidView> {
  await refuseAboveMaxBid(deps.db, caller, input.amount);
  const bidId = newRecordId('bid');
  return bid(deps, caller, input.loanId, {
    action: 'submit',
    bidId,
    investorId: caller.investorId,
    ...input,
  });
}

/** Investor/Bids/{id} PUT: the bid's new amount (a reduction frees the difference). */
export async function changeBid(
  deps: Deps,
  { caller, bidId, amount }: { caller: InvestorCaller; bidId: string; amount: string },
) {
  const held = await bidRow(deps.db, caller, bidId);
  await refuseAboveMaxBid(deps.db, caller, amount);
  return bid(deps, caller, held.loanId, { action: 'change', bidId, investorId: caller.investorId, amount });
}

/** Investor/Bids/{id} DELETE: withdraws the bid (its amount is free again). */
export async function withdrawBid(deps: Deps, { caller, bidId }: { caller: InvestorCaller; bidId: string }) {
  const held = await bidRow(deps.db, caller, bidId);
  return bid(deps, caller, held.loanId, { action: 'withdraw', bidId, investorId: caller.investorId });
}
