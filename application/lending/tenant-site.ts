import { eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { lendingSiteDomains } from '../../db/schema/lending.ts';
import type { Config } from '../../platform/config.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { assertOutboundUrlField } from '../shared/outbound-url.ts';
import { Refusal } from '../shared/refusal.ts';

/**
 * A URL the platform sends the customer to (a reset link in an e-mail, the card page's way back) goes
 * through the outbound/redirect policy (decision 0027 and its amendment): an http(s) URL that does not
 * point inside the platform's network (unless allow-listed), `https:` only in production, and on one of
 * the tenant's registered site domains (a subdomain counts). A tenant without a site domain cannot name
 * such a URL at all: 400 naming `field` (the reset e-mail then carries the code alone). Any refusal is a
 * 400 naming `field`.
 */
export async function requireTenantSiteUrl(
  db: Database,
  config: Pick<Config, 'PLATFORM_MODE' | 'OUTBOUND_URL_ALLOWLIST'>,
  tenantId: string,
  field: string,
  url: string,
) {
  assertOutboundUrlField(config, field, url);
  const parsed = new URL(url);
  if (config.PLATFORM_MODE === 'production' && parsed.protocol !== 'https:')
    throw Refusal.field(field, 'must be an https URL');
  const host = parsed.hostname.toLowerCase();
  const domains = await db
    .select({ domain: lendingSiteDomains.domain })
    .from(lendingSiteDomains)
    .where(eq(lendingSiteDomains.tenantId, tenantId));
  if (domains.length === 0)
    throw Refusal.field(
      field,
      'the tenant has no site domain: a link can only point at a registered site domain',
    );
  if (!domains.some(({ domain }) => host === domain || host.endsWith(`.${domain}`)))
    throw Refusal.field(field, 'must be on one of the tenant’s site domains');
}

/** `requireTenantSiteUrl` as a use case: passes, or refuses `url` naming `field`. */
export const checkTenantSiteUrl = (
  deps: Pick<UseCaseDeps, 'db'> & { config: Pick<Config, 'PLATFORM_MODE' | 'OUTBOUND_URL_ALLOWLIST'> },
  input: { tenantId: string; field: string; url: string },
) => requireTenantSiteUrl(deps.db, deps.config, input.tenantId, input.field, input.url);
