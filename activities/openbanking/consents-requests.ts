import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { obConsentsRequests } from '../../db/schema/openbanking.ts';

/**
 * Consents requests (cgate) are fulfilled by the consent flow: when a user's consent becomes valid, every
 * open request of that user whose banks include the consent's bank (or name no bank) and whose scopes the
 * consent covers is marked fulfilled with that consent. Call from the consent workflow's activity that
 * records the valid consent; idempotent (a repeated call changes nothing).
 */
export async function fulfilConsentsRequests(
  db: Database,
  consent: { userId: string; bankHash: string; consentId: string; scopes: readonly string[] },
): Promise<string[]> {
  const rows = await db
    .update(obConsentsRequests)
    .set({ status: 'fulfilled', consentId: consent.consentId, fulfilledAt: new Date() })
    .where(
      and(
        eq(obConsentsRequests.userId, consent.userId),
        eq(obConsentsRequests.status, 'open'),
        sql`(jsonb_array_length(${obConsentsRequests.banks}) = 0 or ${obConsentsRequests.banks} ? ${consent.bankHash})`,
        sql`${obConsentsRequests.scopes} <@ ${JSON.stringify(consent.scopes)}::jsonb`,
      ),
    )
    .returning({ id: obConsentsRequests.id });
  return rows.map((row) => row.id);
}
