import { and, asc, eq } from 'drizzle-orm';
import { lendingBranchOffices, lendingCancellationReasons } from '../../db/schema/lending.ts';
import type { UseCaseDeps } from '../shared/deps.ts';

/**
 * A tenant's dictionaries: cancellation reasons (each front-office visible or back-office only) and
 * branch offices. New tenants start with the default reasons (credentials/lending/tenants.ts); the
 * operator adds more (POST /admin/lending/tenants/{tenantId}/cancellation-reasons, .../branch-offices).
 */

/** One cancellation reason of a tenant; undefined for an unknown id or another tenant's. */
export async function findCancellationReason(
  { db }: Pick<UseCaseDeps, 'db'>,
  { tenantId, reasonId }: { tenantId: string; reasonId: string },
): Promise<{ id: string; name: string; frontOffice: boolean } | undefined> {
  const [row] = await db
    .select({
      id: lendingCancellationReasons.id,
      name: lendingCancellationReasons.name,
      frontOffice: lendingCancellationReasons.frontOffice,
    })
    .from(lendingCancellationReasons)
    .where(
      and(eq(lendingCancellationReasons.id, reasonId), eq(lendingCancellationReasons.tenantId, tenantId)),
    )
    .limit(1);
  return row;
}

/** The reasons a customer may give (front-office visible), by name. */
export async function frontOfficeCancellationReasons(
  { db }: Pick<UseCaseDeps, 'db'>,
  { tenantId }: { tenantId: string },
) {
  const rows = await db
    .select({ reasonId: lendingCancellationReasons.id, name: lendingCancellationReasons.name })
    .from(lendingCancellationReasons)
    .where(
      and(
        eq(lendingCancellationReasons.tenantId, tenantId),
        eq(lendingCancellationReasons.frontOffice, true),
      ),
    )
    .orderBy(asc(lendingCancellationReasons.name), asc(lendingCancellationReasons.id));
  return rows;
}

export async function branchOffices({ db }: Pick<UseCaseDeps, 'db'>, { tenantId }: { tenantId: string }) {
  return db
    .select({
      branchOfficeId: lendingBranchOffices.id,
      name: lendingBranchOffices.name,
      address: lendingBranchOffices.address,
      phone: lendingBranchOffices.phone,
    })
    .from(lendingBranchOffices)
    .where(eq(lendingBranchOffices.tenantId, tenantId))
    .orderBy(asc(lendingBranchOffices.name), asc(lendingBranchOffices.id));
}
