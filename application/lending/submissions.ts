import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { lendingLoanStatusHistory, lendingLoans } from '../../db/schema/lending-loans.ts';
import { lendingRepaymentSubmissions } from '../../db/schema/lending-servicing.ts';

/** A repayment submission of the tenant (decision 0045), from the read model the loan workflow writes. */
export async function findSubmission(db: Database, tenantId: string, submissionId: string) {
  const [row] = await db
    .select()
    .from(lendingRepaymentSubmissions)
    .where(
      and(
        eq(lendingRepaymentSubmissions.tenantId, tenantId),
        eq(lendingRepaymentSubmissions.submissionId, submissionId),
      ),
    )
    .limit(1);
  return row;
}

type SubmissionRow = NonNullable<Awaited<ReturnType<typeof findSubmission>>>;

/**
 * The gateway's REVERSED of a submission whose loan's workflow has ended (decision 0069: a loan closed,
 * its reversal window passed): no workflow can take the money back any more, so the loan is left as it
 * is and the reversal is put on record for an operator, once: the submission becomes `reversed` with the
 * reason, and the loan's status history gets an entry (its status unchanged) under the next version. The
 * loan's row and its history are the workflow's read model; with the workflow ended, nothing else writes
 * them. Answers the history comment, or undefined when it was on record already.
 */
export async function recordReversalAfterEnd(
  db: Database,
  submission: SubmissionRow,
): Promise<string | undefined> {
  const { tenantId, loanId, submissionId } = submission;
  return db.transaction(async (tx) => {
    const [held] = await tx
      .select()
      .from(lendingRepaymentSubmissions)
      .where(
        and(
          eq(lendingRepaymentSubmissions.tenantId, tenantId),
          eq(lendingRepaymentSubmissions.submissionId, submissionId),
        ),
      )
      .for('update');
    if (!held || held.status === 'reversed') return undefined;
    const [loan] = await tx
      .select({ status: lendingLoans.status, version: lendingLoans.version })
      .from(lendingLoans)
      .where(and(eq(lendingLoans.tenantId, tenantId), eq(lendingLoans.loanId, loanId)))
      .for('update');
    if (!loan) return undefined;
    const at = new Date();
    const version = loan.version + 1;
    const idn = held.idn ? `, IDN ${held.idn}` : '';
    const taken =
      held.status === 'paid' && held.repaymentId
        ? `repayment ${held.repaymentId} stays booked (loan ${loan.status}): an operator must settle it`
        : 'nothing of it was booked';
    const comments = `the bank took back the transfer of ${held.amount} ${held.currency} for invoice ${held.invoice}${idn} after the loan's workflow had ended: ${taken}`;
    await tx
      .update(lendingLoans)
      .set({ version, updatedAt: at })
      .where(and(eq(lendingLoans.tenantId, tenantId), eq(lendingLoans.loanId, loanId)));
    await tx
      .update(lendingRepaymentSubmissions)
      .set({
        status: 'reversed',
        reason: `the bank took the transfer back after the loan's workflow had ended: ${taken}`,
        version,
        updatedAt: at,
      })
      .where(
        and(
          eq(lendingRepaymentSubmissions.tenantId, tenantId),
          eq(lendingRepaymentSubmissions.submissionId, submissionId),
        ),
      );
    await tx.insert(lendingLoanStatusHistory).values({
      tenantId,
      loanId,
      version,
      status: loan.status,
      at,
      actorRole: 'system',
      comments,
    });
    return comments;
  });
}
