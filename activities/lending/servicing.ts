import { ApplicationFailure } from '@temporalio/activity';
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { lendingCreditProducts } from '../../db/schema/lending-products.ts';
import { lendingLoanRepayments, lendingLoanServicing } from '../../db/schema/lending-servicing.ts';
import type { LoanSnapshot } from '../../domain/lending/loan-process.ts';
import { calculateSchedule } from '../../domain/lending/schedule.ts';
import type { ScheduledInstalment } from '../../domain/lending/servicing.ts';

export interface ScheduleRequest {
  tenantId: string;
  productName: string;
  promoCode: string | null;
  amount: string;
  term: number;
  /** The disbursement date: the schedule starts then. */
  startDate: string;
}

/** Loan servicing activities (decision 0043). */
export function createServicingActivities({ db }: { db: Database }) {
  return {
    /** The loan's schedule from its disbursement, under its credit product as it is now (then fixed in the loan). */
    async loanSchedule(request: ScheduleRequest): Promise<ScheduledInstalment[]> {
      const [product] = await db
        .select({ definition: lendingCreditProducts.definition })
        .from(lendingCreditProducts)
        .where(
          and(
            eq(lendingCreditProducts.tenantId, request.tenantId),
            eq(lendingCreditProducts.name, request.productName),
          ),
        )
        .limit(1);
      if (!product)
        throw ApplicationFailure.nonRetryable(
          `no credit product named ${request.productName}`,
          'ScheduleRefused',
        );
      const schedule = calculateSchedule(product.definition, {
        amount: request.amount,
        term: request.term,
        startDate: request.startDate,
        ...(request.promoCode ? { promoCode: request.promoCode } : {}),
      });
      return schedule.instalments.map(({ remainingBalance: _, ...instalment }) => instalment);
    },
  };
}

/** Writes the loan's servicing and repayments (in recordLoan's transaction), keeping the newest version. */
export async function recordServicing(
  tx: Pick<Database, 'insert'>,
  snapshot: LoanSnapshot,
  when: Date,
): Promise<void> {
  const servicing = snapshot.servicing;
  if (!servicing) return;
  const key = { tenantId: snapshot.tenantId, loanId: snapshot.loanId };
  await tx
    .insert(lendingLoanServicing)
    .values({ ...key, version: snapshot.version, servicing, updatedAt: when })
    .onConflictDoUpdate({
      target: [lendingLoanServicing.tenantId, lendingLoanServicing.loanId],
      set: { version: snapshot.version, servicing, updatedAt: when },
      setWhere: lt(lendingLoanServicing.version, sql`excluded.version`),
    });
  for (const repayment of servicing.repayments) {
    const row = {
      ...key,
      repaymentId: repayment.repaymentId,
      amount: repayment.amount,
      date: repayment.date,
      mode: repayment.mode,
      reference: repayment.reference,
      reversed: repayment.reversed,
      version: snapshot.version,
      updatedAt: when,
    };
    await tx
      .insert(lendingLoanRepayments)
      .values(row)
      .onConflictDoUpdate({
        target: [lendingLoanRepayments.tenantId, lendingLoanRepayments.repaymentId],
        set: row,
        setWhere: lt(lendingLoanRepayments.version, sql`excluded.version`),
      });
  }
}
