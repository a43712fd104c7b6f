import { checkOutboundUrl, outboundUrlPolicy } from '../../domain/outbound-url.ts';
import type { Config } from '../../platform/config.ts';
import { Refusal } from './refusal.ts';

/**
 * Registration check of a tenant-controlled URL under the outbound-URL policy (decision 0027): a URL
 * that points inside the platform's network (or is not http(s)) is a 400 naming `field`. Names are
 * checked again, on the addresses they resolve to, whenever the platform calls them.
 */
export function assertOutboundUrlField(
  config: Pick<Config, 'PLATFORM_MODE' | 'OUTBOUND_URL_ALLOWLIST'>,
  field: string,
  url: string | null | undefined,
): void {
  if (url === null || url === undefined) return;
  const check = checkOutboundUrl(outboundUrlPolicy(config), url);
  if (!check.ok) throw Refusal.field(field, check.reason);
}
