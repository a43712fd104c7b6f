import { randomBytes } from 'node:crypto';
import { eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import {
  type LendingDisclaimerSettings,
  type LendingTenantFeatures,
  lendingBranchOffices,
  lendingCancellationReasons,
  lendingSiteDomains,
  lendingTenants,
} from '../../db/schema/lending.ts';
import { hostNameOf } from './api-keys.ts';

/**
 * Lending tenants (decision 0037): created by the platform operator (`npm run admin -- lending:tenant`,
 * POST /admin/lending/tenants), always as a pair: the production tenant and its staging tenant, each
 * with its own keys, users and data. A tenant names its site domains (a request whose Host is one of
 * them must carry that tenant's key), its features, its disclaimer and its states of operation.
 */

export interface NewLendingTenant {
  name: string;
  siteDomains?: readonly string[] | undefined;
  stagingSiteDomains?: readonly string[] | undefined;
  features?: Partial<LendingTenantFeatures> | undefined;
  disclaimer?: Partial<LendingDisclaimerSettings> | undefined;
  states?: readonly string[] | undefined;
}

export interface CreatedLendingTenant {
  tenantId: string;
  stagingTenantId: string;
  name: string;
  siteDomains: string[];
  stagingSiteDomains: string[];
  features: LendingTenantFeatures;
  disclaimer: LendingDisclaimerSettings;
  states: string[];
}

/** A DNS host name (labels of letters, digits and dashes); `localhost`-style single labels too. */
const DOMAIN_PATTERN =
  /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
const STATE_PATTERN = /^[A-Z]{2}$/;

export const DEFAULT_DISCLAIMER: LendingDisclaimerSettings = {
  required: true,
  version: '1',
  text: 'I confirm that the information I give is true and complete, and I agree to the processing of my personal data for the assessment of my loan application.',
};

/**
 * The cancellation reasons every new tenant starts with: front-office ones a customer may give
 * (Customer/Loans/{loanId}/Cancel), back-office ones only management may.
 */
export const DEFAULT_CANCELLATION_REASONS = [
  { name: 'Changed my mind', frontOffice: true },
  { name: 'Found a better offer', frontOffice: true },
  { name: 'Loan no longer needed', frontOffice: true },
  { name: 'Suspected fraud', frontOffice: false },
  { name: 'Duplicate application', frontOffice: false },
] as const;

export class SiteDomainTaken extends Error {
  constructor(readonly domains: string[]) {
    super(`site domain already in use: ${domains.join(', ')}`);
    this.name = 'SiteDomainTaken';
  }
}

export class InvalidTenantInput extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = 'InvalidTenantInput';
  }
}

const newTenantId = () => `ten_${randomBytes(8).toString('hex')}`;
export const newRecordId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

function domainsOf(field: string, domains: readonly string[] | undefined): string[] {
  const names = [...new Set((domains ?? []).map(hostNameOf))];
  for (const name of names) {
    if (!DOMAIN_PATTERN.test(name)) throw new InvalidTenantInput(field, `not a host name: ${name}`);
  }
  return names;
}

export async function createLendingTenant(
  db: Database,
  input: NewLendingTenant,
): Promise<CreatedLendingTenant> {
  const name = input.name.trim();
  if (!name || name.length > 200) throw new InvalidTenantInput('name', '1-200 characters');
  const siteDomains = domainsOf('siteDomains', input.siteDomains);
  const stagingSiteDomains = domainsOf('stagingSiteDomains', input.stagingSiteDomains);
  const states = [...new Set(input.states ?? [])];
  for (const state of states) {
    if (!STATE_PATTERN.test(state)) throw new InvalidTenantInput('states', `not a two-letter code: ${state}`);
  }
  const features: LendingTenantFeatures = {
    stateManagement: input.features?.stateManagement ?? false,
    multipleOffers: input.features?.multipleOffers ?? false,
  };
  const disclaimer: LendingDisclaimerSettings = { ...DEFAULT_DISCLAIMER, ...input.disclaimer };
  const tenantId = newTenantId();
  const stagingTenantId = newTenantId();
  const allDomains = [...siteDomains, ...stagingSiteDomains];
  if (new Set(allDomains).size !== allDomains.length) {
    throw new InvalidTenantInput('stagingSiteDomains', 'a domain cannot serve production and staging');
  }

  await db.transaction(async (tx) => {
    if (allDomains.length > 0) {
      const taken = await tx
        .select({ domain: lendingSiteDomains.domain })
        .from(lendingSiteDomains)
        .where(inArray(lendingSiteDomains.domain, allDomains));
      if (taken.length > 0) throw new SiteDomainTaken(taken.map((row) => row.domain));
    }
    const common = { name, features, disclaimer, states };
    await tx.insert(lendingTenants).values([
      { id: tenantId, environment: 'production', productionTenantId: null, ...common },
      { id: stagingTenantId, environment: 'staging', productionTenantId: tenantId, ...common },
    ]);
    const domainRows = [
      ...siteDomains.map((domain) => ({ domain, tenantId })),
      ...stagingSiteDomains.map((domain) => ({ domain, tenantId: stagingTenantId })),
    ];
    if (domainRows.length > 0) await tx.insert(lendingSiteDomains).values(domainRows);
    await tx.insert(lendingCancellationReasons).values(
      [tenantId, stagingTenantId].flatMap((owner) =>
        DEFAULT_CANCELLATION_REASONS.map((reason) => ({
          id: newRecordId('crs'),
          tenantId: owner,
          ...reason,
        })),
      ),
    );
  });
  return { tenantId, stagingTenantId, name, siteDomains, stagingSiteDomains, features, disclaimer, states };
}

export async function findLendingTenant(db: Database, tenantId: string) {
  const [tenant] = await db.select().from(lendingTenants).where(eq(lendingTenants.id, tenantId));
  if (!tenant) return undefined;
  const domains = await db
    .select({ domain: lendingSiteDomains.domain })
    .from(lendingSiteDomains)
    .where(eq(lendingSiteDomains.tenantId, tenantId));
  return { ...tenant, siteDomains: domains.map((row) => row.domain) };
}

/** Adds a branch office to a tenant (the operator's; Management/BranchOffices lists them). */
export async function addBranchOffice(
  db: Database,
  tenantId: string,
  office: { name: string; address?: string | undefined; phone?: string | undefined },
) {
  const [row] = await db
    .insert(lendingBranchOffices)
    .values({
      id: newRecordId('bro'),
      tenantId,
      name: office.name,
      address: office.address ?? null,
      phone: office.phone ?? null,
    })
    .returning();
  return row!;
}

/** Adds a cancellation reason to a tenant (front-office ones are listed by Dictionary/CancellationReasons). */
export async function addCancellationReason(
  db: Database,
  tenantId: string,
  reason: { name: string; frontOffice: boolean },
) {
  const [row] = await db
    .insert(lendingCancellationReasons)
    .values({ id: newRecordId('crs'), tenantId, ...reason })
    .returning();
  return row!;
}
