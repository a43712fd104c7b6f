import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { lendingSiteDomains } from '../../db/schema/lending.ts';
import { Refusal } from '../shared/refusal.ts';

/**
 * A URL the platform sends the customer to (a reset link, the card page's way back) must be on one of
 * the tenant's site domains when it has any (a subdomain counts): 400 naming `field` otherwise.
 */
export async function requireTenantSiteUrl(db: Database, tenantId: string, field: string, url: string) {
  const host = new URL(url).hostname.toLowerCase();
  const domains = await db
    .select({ domain: lendingSiteDomains.domain })
    .from(lendingSiteDomains)
    .where(eq(lendingSiteDomains.tenantId, tenantId));
  if (domains.length > 0 && !domains.some(({ domain }) => host === domain || host.endsWith(`.${domain}`)))
    throw Refusal.field(field, 'must be on one of the tenant’s site domains');
}
