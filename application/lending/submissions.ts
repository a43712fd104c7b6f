import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
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
