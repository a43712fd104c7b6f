import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import {
  lendingLoanPointsOfSale,
  lendingStores,
  lendingVendors,
} from '../../db/schema/lending-reference-data.ts';
import {
  type BoundingBox,
  insideBox,
  type Vendor,
  vendorProblems,
} from '../../domain/lending/reference-data.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { requireTenant, vendorSettings } from './reference-data.ts';

/**
 * A tenant's vendors and their stores (Vendors/*; the operator writes them), and the point of sale a loan
 * names from them. Every read and write is scoped by tenant.
 */

type Deps = Pick<UseCaseDeps, 'db'>;

// --- vendors and stores -----------------------------------------------------------------------------

export interface StoreView {
  storeId: string;
  vendorId: string;
  name: string;
  address: string;
  city: string | null;
  latitude: number;
  longitude: number;
}

const storeColumns = {
  storeId: lendingStores.storeId,
  vendorId: lendingStores.vendorId,
  name: lendingStores.name,
  address: lendingStores.address,
  city: lendingStores.city,
  latitude: lendingStores.latitude,
  longitude: lendingStores.longitude,
};

/** Vendors/GetVendors: the tenant's active vendors by name, with how many active stores each has. */
export async function activeVendors({ db }: Deps, { tenantId }: { tenantId: string }) {
  const vendors = await db
    .select({ vendorId: lendingVendors.vendorId, name: lendingVendors.name })
    .from(lendingVendors)
    .where(and(eq(lendingVendors.tenantId, tenantId), eq(lendingVendors.active, true)))
    .orderBy(asc(lendingVendors.name), asc(lendingVendors.vendorId));
  const stores = await db
    .select({ vendorId: lendingStores.vendorId })
    .from(lendingStores)
    .where(and(eq(lendingStores.tenantId, tenantId), eq(lendingStores.active, true)));
  return vendors.map((vendor) => ({
    ...vendor,
    storeCount: stores.filter((store) => store.vendorId === vendor.vendorId).length,
  }));
}

async function findVendor(db: Database, tenantId: string, vendorId: string) {
  const [vendor] = await db
    .select()
    .from(lendingVendors)
    .where(and(eq(lendingVendors.tenantId, tenantId), eq(lendingVendors.vendorId, vendorId)));
  return vendor;
}

/** Vendors/GetStores/{vendorId}: an active vendor's active stores; 404 for an unknown, inactive or another tenant's vendor. */
export async function storesOfVendor(
  { db }: Deps,
  { tenantId, vendorId }: { tenantId: string; vendorId: string },
): Promise<{ vendorId: string; name: string; stores: StoreView[] }> {
  const vendor = await findVendor(db, tenantId, vendorId);
  if (!vendor?.active) throw Refusal.notFound('Vendor');
  const stores = await db
    .select(storeColumns)
    .from(lendingStores)
    .where(
      and(
        eq(lendingStores.tenantId, tenantId),
        eq(lendingStores.vendorId, vendorId),
        eq(lendingStores.active, true),
      ),
    )
    .orderBy(asc(lendingStores.position));
  return { vendorId, name: vendor.name, stores };
}

/**
 * Vendors/StoresMap: the active stores of active vendors with their vendor's name, inside `box` when one
 * is given (`west > east` crosses the antimeridian), of one vendor when `vendorId` is given.
 */
export async function storesMap(
  { db }: Deps,
  { tenantId, ...filter }: { tenantId: string; box?: BoundingBox | undefined; vendorId?: string | undefined },
): Promise<(StoreView & { vendorName: string })[]> {
  const rows = await db
    .select({ ...storeColumns, vendorName: lendingVendors.name })
    .from(lendingStores)
    .innerJoin(
      lendingVendors,
      and(
        eq(lendingVendors.tenantId, lendingStores.tenantId),
        eq(lendingVendors.vendorId, lendingStores.vendorId),
      ),
    )
    .where(
      and(
        eq(lendingStores.tenantId, tenantId),
        eq(lendingStores.active, true),
        eq(lendingVendors.active, true),
        filter.vendorId !== undefined ? eq(lendingStores.vendorId, filter.vendorId) : undefined,
      ),
    )
    .orderBy(asc(lendingVendors.name), asc(lendingStores.position));
  const { box } = filter;
  return box ? rows.filter((store) => insideBox(box, store)) : rows;
}

/** Every vendor of the tenant with all its stores, inactive ones too (the operator's view). */
export async function allVendors({ db }: Deps, tenantId: string): Promise<Vendor[]> {
  const vendors = await db
    .select()
    .from(lendingVendors)
    .where(eq(lendingVendors.tenantId, tenantId))
    .orderBy(asc(lendingVendors.name), asc(lendingVendors.vendorId));
  const stores = await db
    .select()
    .from(lendingStores)
    .where(eq(lendingStores.tenantId, tenantId))
    .orderBy(asc(lendingStores.position));
  return vendors.map((vendor) => ({
    vendorId: vendor.vendorId,
    name: vendor.name,
    active: vendor.active,
    stores: stores
      .filter((store) => store.vendorId === vendor.vendorId)
      .map(({ storeId, name, address, city, latitude, longitude, active }) => ({
        storeId,
        name,
        address,
        latitude,
        longitude,
        active,
        ...(city !== null ? { city } : {}),
      })),
  }));
}

/**
 * Creates or replaces a vendor with its stores (stores it no longer lists are removed; loans keep the
 * names they were sold under). 400 naming `stores.<i>.storeId` for a store id twice or of another vendor.
 */
export async function putVendor(
  { db }: Deps,
  { tenantId, vendor }: { tenantId: string; vendor: Vendor },
): Promise<{ vendor: Vendor; created: boolean }> {
  await requireTenant(db, tenantId);
  const problems = vendorProblems(vendor);
  if (problems.length > 0) throw Refusal.validation(problems);
  const storeIds = vendor.stores.map((store) => store.storeId);
  const elsewhere =
    storeIds.length === 0
      ? []
      : await db
          .select({ storeId: lendingStores.storeId, vendorId: lendingStores.vendorId })
          .from(lendingStores)
          .where(and(eq(lendingStores.tenantId, tenantId), inArray(lendingStores.storeId, storeIds)));
  const taken = vendor.stores.flatMap((store, index) => {
    const owner = elsewhere.find((row) => row.storeId === store.storeId && row.vendorId !== vendor.vendorId);
    return owner
      ? [{ field: `stores.${index}.storeId`, message: `a store of vendor ${owner.vendorId}` }]
      : [];
  });
  if (taken.length > 0) throw Refusal.validation(taken);
  const created = await db.transaction(async (tx) => {
    const existed =
      (
        await tx
          .delete(lendingVendors)
          .where(and(eq(lendingVendors.tenantId, tenantId), eq(lendingVendors.vendorId, vendor.vendorId)))
          .returning()
      ).length > 0;
    await tx
      .delete(lendingStores)
      .where(and(eq(lendingStores.tenantId, tenantId), eq(lendingStores.vendorId, vendor.vendorId)));
    await tx
      .insert(lendingVendors)
      .values({ tenantId, vendorId: vendor.vendorId, name: vendor.name, active: vendor.active });
    if (vendor.stores.length > 0) {
      await tx.insert(lendingStores).values(
        vendor.stores.map((store, position) => ({
          tenantId,
          vendorId: vendor.vendorId,
          storeId: store.storeId,
          name: store.name,
          address: store.address,
          city: store.city ?? null,
          latitude: store.latitude,
          longitude: store.longitude,
          active: store.active,
          position,
        })),
      );
    }
    return !existed;
  });
  return { vendor, created };
}

// --- the point of sale of a loan --------------------------------------------------------------------

export interface PointOfSale {
  vendorId: string;
  vendorName: string;
  storeId: string | null;
  storeName: string | null;
}

/**
 * The vendor and store a new loan names, checked against the tenant's vendors and its settings: 400
 * naming `vendorId` (unknown, inactive, another tenant's; or missing while the settings require it) or
 * `storeId` (not an active store of that vendor; given without a vendor; missing while required).
 */
export async function pointOfSaleOfNewLoan(
  { db }: Deps,
  tenantId: string,
  named: { vendorId?: string | undefined; storeId?: string | undefined },
): Promise<PointOfSale | undefined> {
  const settings = await vendorSettings({ db }, { tenantId });
  if (named.vendorId === undefined) {
    if (named.storeId !== undefined) throw Refusal.field('vendorId', 'required with storeId');
    if (settings.vendorRequired) throw Refusal.field('vendorId', 'the tenant requires the vendor of a loan');
    return undefined;
  }
  const vendor = await findVendor(db, tenantId, named.vendorId);
  if (!vendor?.active) throw Refusal.field('vendorId', 'no active vendor of this id');
  if (named.storeId === undefined) {
    if (settings.storeRequired) throw Refusal.field('storeId', 'the tenant requires the store of a loan');
    return { vendorId: vendor.vendorId, vendorName: vendor.name, storeId: null, storeName: null };
  }
  const [store] = await db
    .select()
    .from(lendingStores)
    .where(
      and(
        eq(lendingStores.tenantId, tenantId),
        eq(lendingStores.storeId, named.storeId),
        eq(lendingStores.vendorId, vendor.vendorId),
        eq(lendingStores.active, true),
      ),
    );
  if (!store) throw Refusal.field('storeId', `no active store of vendor ${vendor.vendorId} of this id`);
  return {
    vendorId: vendor.vendorId,
    vendorName: vendor.name,
    storeId: store.storeId,
    storeName: store.name,
  };
}

/** Records the point of sale of a loan just created (once; the loan's workflow never sees it). */
export async function recordPointOfSale(
  { db }: Deps,
  tenantId: string,
  loanId: string,
  pointOfSale: PointOfSale,
): Promise<void> {
  await db
    .insert(lendingLoanPointsOfSale)
    .values({ tenantId, loanId, ...pointOfSale })
    .onConflictDoNothing();
}
