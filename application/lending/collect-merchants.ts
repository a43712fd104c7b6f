import { type CollectMerchant, loadCollectMerchant } from '../../credentials/lending/collect-merchants.ts';
import type { Database } from '../../db/client.ts';
import type { Config } from '../../platform/config.ts';
import { Refusal } from '../shared/refusal.ts';

/**
 * The tenant's merchant at the collection gateway (decisions 0041, 0045) for the operations that use the
 * gateway: 409 `collect_merchant_not_configured` until the platform operator has configured it.
 */
export async function requireCollectMerchant(
  db: Database,
  config: Pick<Config, 'LENDING_DATA_KEY' | 'PLATFORM_MODE'>,
  tenantId: string,
): Promise<CollectMerchant> {
  const merchant = await loadCollectMerchant(db, config, tenantId);
  if (!merchant)
    throw Refusal.conflict(
      'collect_merchant_not_configured',
      'The tenant is not a merchant of the collection gateway yet (the platform operator configures it)',
    );
  return merchant;
}
