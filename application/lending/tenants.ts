import {
  ExpiryInThePast,
  type IssuedApiKey,
  issueApiKey,
  revokeApiKey,
  UnknownTenant,
} from '../../credentials/lending/api-keys.ts';
import {
  CollectMerchantTaken,
  describeCollectMerchant,
  saveCollectMerchant,
} from '../../credentials/lending/collect-merchants.ts';
import {
  addBranchOffice,
  addCancellationReason,
  type CreatedLendingTenant,
  createLendingTenant,
  findLendingTenant,
  InvalidTenantInput,
  type NewLendingTenant,
  SiteDomainTaken,
} from '../../credentials/lending/tenants.ts';
import type { LendingPermission } from '../../domain/lending/tenancy.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';

/**
 * The platform operator's use cases of the lending platform (decision 0037; api/admin/lending-*.ts and
 * `npm run admin -- lending:*`): tenants with their staging twins, API keys, branch offices,
 * cancellation reasons, and the tenant's merchant at the collection gateway (decision 0041).
 */

type Deps = Pick<UseCaseDeps, 'db'>;

/** 409 `site_domain_taken` when a site domain belongs to another tenant; 400 naming a field refused. */
export async function createTenant(deps: Deps, input: NewLendingTenant): Promise<CreatedLendingTenant> {
  try {
    return await createLendingTenant(deps.db, input);
  } catch (error) {
    if (error instanceof SiteDomainTaken) throw Refusal.conflict('site_domain_taken', error.message);
    if (error instanceof InvalidTenantInput) throw Refusal.field(error.field, error.message);
    throw error;
  }
}

async function requireTenant(deps: Deps, tenantId: string) {
  const tenant = await findLendingTenant(deps.db, tenantId);
  if (!tenant) throw Refusal.notFound('Tenant');
  return tenant;
}

export async function readTenant(deps: Deps, { tenantId }: { tenantId: string }) {
  const tenant = await requireTenant(deps, tenantId);
  return { ...tenant, createdAt: tenant.createdAt.toISOString() };
}

export async function issueTenantApiKey(
  deps: Deps,
  input: {
    tenantId: string;
    permissions: LendingPermission[];
    label?: string | undefined;
    expiresAt?: string | undefined;
  },
): Promise<IssuedApiKey> {
  try {
    return await issueApiKey(deps.db, {
      tenantId: input.tenantId,
      permissions: input.permissions,
      ...(input.label !== undefined ? { label: input.label } : {}),
      ...(input.expiresAt ? { expiresAt: new Date(input.expiresAt) } : {}),
    });
  } catch (error) {
    if (error instanceof UnknownTenant) throw Refusal.notFound('Tenant');
    if (error instanceof ExpiryInThePast) throw Refusal.field('expiresAt', 'must be in the future');
    throw error;
  }
}

export async function revokeTenantApiKey(deps: Deps, { keyId }: { keyId: string }): Promise<void> {
  if (!(await revokeApiKey(deps.db, keyId))) throw Refusal.notFound('Active key');
}

export async function addTenantBranchOffice(
  deps: Deps,
  {
    tenantId,
    office,
  }: { tenantId: string; office: { name: string; address?: string | undefined; phone?: string | undefined } },
) {
  await requireTenant(deps, tenantId);
  const added = await addBranchOffice(deps.db, tenantId, office);
  return { ...added, createdAt: added.createdAt.toISOString() };
}

export async function addTenantCancellationReason(
  deps: Deps,
  { tenantId, reason }: { tenantId: string; reason: { name: string; frontOffice: boolean } },
) {
  await requireTenant(deps, tenantId);
  const added = await addCancellationReason(deps.db, tenantId, reason);
  return { ...added, createdAt: added.createdAt.toISOString() };
}

/** The tenant's merchant at the collection gateway, without its secret. */
export interface CollectMerchantView {
  tenantId: string;
  min: string;
  updatedAt: Date;
}

/** Sets the MIN and secret (stored encrypted); 409 `collect_merchant_taken` when the MIN is another tenant's. */
export async function setCollectMerchant(
  deps: Pick<UseCaseDeps, 'db' | 'config'>,
  { tenantId, merchant }: { tenantId: string; merchant: { min: string; secret: string } },
): Promise<CollectMerchantView> {
  try {
    const saved = await saveCollectMerchant(deps.db, deps.config, tenantId, merchant);
    if (!saved) throw Refusal.notFound('Lending tenant');
    return saved;
  } catch (error) {
    if (error instanceof CollectMerchantTaken)
      throw new Refusal(409, 'collect_merchant_taken', error.message, [
        { field: 'min', message: error.message },
      ]);
    throw error;
  }
}

export async function readCollectMerchant(
  deps: Deps,
  { tenantId }: { tenantId: string },
): Promise<CollectMerchantView> {
  const merchant = await describeCollectMerchant(deps.db, tenantId);
  if (!merchant) throw Refusal.notFound('Collection merchant of the tenant');
  return merchant;
}
