import { lt, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { lendingInvestmentShares, lendingInvestorBids } from '../../db/schema/lending-investors.ts';
import { shareRepayment } from '../../domain/lending/bids.ts';
import type { LoanSnapshot } from '../../domain/lending/loan-process.ts';

/** `set` of an upsert of many rows: every column of the row proposed (`excluded`). */
const excludedColumns = (columns: Record<string, { name: string }>) =>
  Object.fromEntries(
    Object.entries(columns).map(([key, column]) => [key, sql.raw(`excluded."${column.name}"`)]),
  );

/**
 * The loan's funding in the read model (decision 0052), written by recordLoan with the loan's version
 * (the newest kept): its bids, and once they are investments each repayment's shares among them.
 */
export async function recordBids(tx: Pick<Database, 'insert'>, snapshot: LoanSnapshot): Promise<void> {
  const funding = snapshot.funding;
  if (!funding || funding.bids.length === 0) return;
  const { tenantId, loanId, version } = snapshot;
  const bids = funding.bids.map((bid) => ({
    tenantId,
    loanId,
    bidId: bid.bidId,
    investorId: bid.investorId,
    amount: bid.amount,
    status: bid.status,
    placedAt: new Date(bid.placedAt),
    updatedAt: new Date(bid.updatedAt),
    investedOn: bid.status === 'invested' ? (funding.investedOn ?? null) : null,
    version,
  }));
  await tx
    .insert(lendingInvestorBids)
    .values(bids)
    .onConflictDoUpdate({
      target: [lendingInvestorBids.tenantId, lendingInvestorBids.bidId],
      set: excludedColumns({
        amount: lendingInvestorBids.amount,
        status: lendingInvestorBids.status,
        updatedAt: lendingInvestorBids.updatedAt,
        investedOn: lendingInvestorBids.investedOn,
        version: lendingInvestorBids.version,
      }),
      setWhere: lt(lendingInvestorBids.version, sql`excluded.version`),
    });
  const investments = funding.bids.filter((bid) => bid.status === 'invested');
  const shares = (snapshot.servicing?.repayments ?? []).flatMap((repayment) =>
    shareRepayment(repayment.amount, snapshot.amount, investments).map((share) => ({
      tenantId,
      loanId,
      bidId: share.bidId,
      repaymentId: repayment.repaymentId,
      repaymentAmount: repayment.amount,
      amount: share.amount,
      date: repayment.date,
      reversed: repayment.reversed,
      version,
    })),
  );
  if (shares.length === 0) return;
  await tx
    .insert(lendingInvestmentShares)
    .values(shares)
    .onConflictDoUpdate({
      target: [
        lendingInvestmentShares.tenantId,
        lendingInvestmentShares.bidId,
        lendingInvestmentShares.repaymentId,
      ],
      set: excludedColumns({
        repaymentAmount: lendingInvestmentShares.repaymentAmount,
        amount: lendingInvestmentShares.amount,
        date: lendingInvestmentShares.date,
        reversed: lendingInvestmentShares.reversed,
        version: lendingInvestmentShares.version,
      }),
      setWhere: lt(lendingInvestmentShares.version, sql`excluded.version`),
    });
}
