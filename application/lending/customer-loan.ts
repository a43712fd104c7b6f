import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { lendingLoans } from '../../db/schema/lending-loans.ts';
import { Refusal } from '../shared/refusal.ts';

export type LoanRow = typeof lendingLoans.$inferSelect;

/** The customer's own loan of the tenant: 404 for an unknown loan, another tenant's or another customer's. */
export async function customerLoanOf(
  db: Database,
  tenantId: string,
  customerId: string,
  loanId: string,
): Promise<LoanRow> {
  const [row] = await db
    .select()
    .from(lendingLoans)
    .where(and(eq(lendingLoans.tenantId, tenantId), eq(lendingLoans.loanId, loanId)))
    .limit(1);
  if (!row || row.customerId !== customerId) throw Refusal.notFound('Loan');
  return row;
}
