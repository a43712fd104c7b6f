import { and, asc, eq, ilike, inArray, type SQL } from 'drizzle-orm';
import { findLendingTenant } from '../../credentials/lending/tenants.ts';
import type { Database } from '../../db/client.ts';
import {
  lendingApplicationSettings,
  lendingDictionaries,
  lendingDictionaryValues,
  lendingLoanPointsOfSale,
  lendingStores,
  lendingVendors,
} from '../../db/schema/lending-reference-data.ts';
import {
  type BoundingBox,
  type CoApplicantOptionalField,
  type CoApplicantSettings,
  coApplicantProblems,
  DEFAULT_CO_APPLICANT_SETTINGS,
  DEFAULT_VENDOR_SETTINGS,
  type Dictionary,
  dictionaryProblems,
  insideBox,
  type ReferenceDataSeed,
  type Vendor,
  type VendorSettings,
  vendorProblems,
} from '../../domain/lending/reference-data.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';

/**
 * A tenant's reference data (domain/lending/reference-data.ts): the front site reads it
 * (Dictionary/GetValues, GetFilteredValues, Settings/Application/CoApplicant, Vendors/*), the operator
 * writes it (api/admin/lending-reference-data.ts, `npm run admin -- lending:*`), loans name a vendor and
 * store from it. Every read and write is scoped by tenant.
 */

type Deps = Pick<UseCaseDeps, 'db'>;

async function requireTenant(db: Database, tenantId: string): Promise<void> {
  if (!(await findLendingTenant(db, tenantId))) throw Refusal.notFound('Tenant');
}

// --- dictionaries -----------------------------------------------------------------------------------

export interface DictionaryValueView {
  code: string;
  name: string;
  parentCode: string | null;
}

export interface DictionaryView {
  name: string;
  parent: string | null;
  values: DictionaryValueView[];
}

const valueColumns = {
  code: lendingDictionaryValues.code,
  name: lendingDictionaryValues.name,
  parentCode: lendingDictionaryValues.parentCode,
};

/** 400 naming `field` when the tenant has no dictionary `name`. */
async function requireDictionary(db: Database, tenantId: string, name: string, field: string) {
  const [row] = await db
    .select()
    .from(lendingDictionaries)
    .where(and(eq(lendingDictionaries.tenantId, tenantId), eq(lendingDictionaries.name, name)));
  if (!row) throw Refusal.field(field, `no dictionary ${name}`);
  return row;
}

/**
 * Dictionary/GetValues: the tenant's dictionaries with their values in the operator's order; all of
 * them, or those `names` lists (400 naming `names.<i>` for one the tenant does not have).
 */
export async function dictionaryValues(
  { db }: Deps,
  tenantId: string,
  names?: readonly string[],
): Promise<{ dictionaries: DictionaryView[] }> {
  const dictionaries = await db
    .select()
    .from(lendingDictionaries)
    .where(
      and(
        eq(lendingDictionaries.tenantId, tenantId),
        names ? inArray(lendingDictionaries.name, [...names]) : undefined,
      ),
    )
    .orderBy(asc(lendingDictionaries.name));
  const known = new Set(dictionaries.map((dictionary) => dictionary.name));
  const unknown = (names ?? []).flatMap((name, index) =>
    known.has(name) ? [] : [{ field: `names.${index}`, message: `no dictionary ${name}` }],
  );
  if (unknown.length > 0) throw Refusal.validation(unknown);
  if (dictionaries.length === 0) return { dictionaries: [] };
  const values = await db
    .select({ ...valueColumns, dictionary: lendingDictionaryValues.dictionary })
    .from(lendingDictionaryValues)
    .where(
      and(
        eq(lendingDictionaryValues.tenantId, tenantId),
        inArray(lendingDictionaryValues.dictionary, [...known]),
      ),
    )
    .orderBy(asc(lendingDictionaryValues.position));
  return {
    dictionaries: dictionaries.map((dictionary) => ({
      name: dictionary.name,
      parent: dictionary.parent,
      values: values
        .filter((value) => value.dictionary === dictionary.name)
        .map(({ code, name, parentCode }) => ({ code, name, parentCode })),
    })),
  };
}

/** Dictionary/GetFilteredValues' filter: every given criterion must hold. */
export interface DictionaryFilter {
  name: string;
  /** Values of this parent value (cities of a region); the dictionary must have a parent. */
  parentCode?: string | undefined;
  /** Values whose name starts with this text, ignoring case. */
  startsWith?: string | undefined;
  /** Values of these codes. */
  codes?: string[] | undefined;
  limit: number;
}

/** `%`, `_` and `\` are literal in a prefix: escaped for LIKE. */
const likePrefix = (text: string) => `${text.replace(/[\\%_]/g, (sign) => `\\${sign}`)}%`;

/**
 * Dictionary/GetFilteredValues: one dictionary's values that pass the filter, in the operator's order, at
 * most `limit`; `more` says whether more passed. 400 naming `name` (unknown) or `parentCode` (no parent).
 */
export async function filteredDictionaryValues(
  { db }: Deps,
  tenantId: string,
  filter: DictionaryFilter,
): Promise<{ name: string; parent: string | null; values: DictionaryValueView[]; more: boolean }> {
  const dictionary = await requireDictionary(db, tenantId, filter.name, 'name');
  if (filter.parentCode !== undefined && dictionary.parent === null) {
    throw Refusal.field('parentCode', `${filter.name} has no parent dictionary`);
  }
  const criteria: (SQL | undefined)[] = [
    eq(lendingDictionaryValues.tenantId, tenantId),
    eq(lendingDictionaryValues.dictionary, filter.name),
    filter.parentCode !== undefined ? eq(lendingDictionaryValues.parentCode, filter.parentCode) : undefined,
    filter.startsWith ? ilike(lendingDictionaryValues.name, likePrefix(filter.startsWith)) : undefined,
    filter.codes ? inArray(lendingDictionaryValues.code, filter.codes) : undefined,
  ];
  const values = await db
    .select(valueColumns)
    .from(lendingDictionaryValues)
    .where(and(...criteria))
    .orderBy(asc(lendingDictionaryValues.position))
    .limit(filter.limit + 1);
  return {
    name: dictionary.name,
    parent: dictionary.parent,
    values: values.slice(0, filter.limit),
    more: values.length > filter.limit,
  };
}

/**
 * Creates or replaces a dictionary with its values (the operator). 400 naming the field: duplicate codes,
 * an unknown parent dictionary, a `parentCode` that is not a code of the parent.
 */
export async function putDictionary(
  { db }: Deps,
  tenantId: string,
  dictionary: Dictionary,
): Promise<{ dictionary: DictionaryView; created: boolean }> {
  await requireTenant(db, tenantId);
  const problems = dictionaryProblems(dictionary);
  if (problems.length > 0) throw Refusal.validation(problems);
  if (dictionary.parent !== undefined) {
    await requireDictionary(db, tenantId, dictionary.parent, 'parent');
    const parentCodes = new Set(
      (
        await db
          .select({ code: lendingDictionaryValues.code })
          .from(lendingDictionaryValues)
          .where(
            and(
              eq(lendingDictionaryValues.tenantId, tenantId),
              eq(lendingDictionaryValues.dictionary, dictionary.parent),
            ),
          )
      ).map((row) => row.code),
    );
    const orphans = dictionary.values.flatMap((value, index) =>
      value.parentCode !== undefined && !parentCodes.has(value.parentCode)
        ? [{ field: `values.${index}.parentCode`, message: `not a code of ${dictionary.parent}` }]
        : [],
    );
    if (orphans.length > 0) throw Refusal.validation(orphans);
  }
  const created = await db.transaction(async (tx) => {
    const where = and(
      eq(lendingDictionaries.tenantId, tenantId),
      eq(lendingDictionaries.name, dictionary.name),
    );
    const existed = (await tx.delete(lendingDictionaries).where(where).returning()).length > 0;
    await tx
      .delete(lendingDictionaryValues)
      .where(
        and(
          eq(lendingDictionaryValues.tenantId, tenantId),
          eq(lendingDictionaryValues.dictionary, dictionary.name),
        ),
      );
    await tx
      .insert(lendingDictionaries)
      .values({ tenantId, name: dictionary.name, parent: dictionary.parent ?? null });
    if (dictionary.values.length > 0) {
      await tx.insert(lendingDictionaryValues).values(
        dictionary.values.map((value, position) => ({
          tenantId,
          dictionary: dictionary.name,
          code: value.code,
          name: value.name,
          parentCode: value.parentCode ?? null,
          position,
        })),
      );
    }
    return !existed;
  });
  const [view] = (await dictionaryValues({ db }, tenantId, [dictionary.name])).dictionaries;
  return { dictionary: view!, created };
}

/** Removes a dictionary; 404 when the tenant has none of that name, 409 while another names it as parent. */
export async function deleteDictionary({ db }: Deps, tenantId: string, name: string): Promise<void> {
  const [child] = await db
    .select({ name: lendingDictionaries.name })
    .from(lendingDictionaries)
    .where(and(eq(lendingDictionaries.tenantId, tenantId), eq(lendingDictionaries.parent, name)))
    .limit(1);
  if (child) throw Refusal.conflict('dictionary_in_use', `${child.name} names ${name} as its parent`);
  await db.transaction(async (tx) => {
    const deleted = await tx
      .delete(lendingDictionaries)
      .where(and(eq(lendingDictionaries.tenantId, tenantId), eq(lendingDictionaries.name, name)))
      .returning();
    if (deleted.length === 0) throw Refusal.notFound('Dictionary');
    await tx
      .delete(lendingDictionaryValues)
      .where(
        and(eq(lendingDictionaryValues.tenantId, tenantId), eq(lendingDictionaryValues.dictionary, name)),
      );
  });
}

// --- settings ---------------------------------------------------------------------------------------

async function settingsRow(db: Database, tenantId: string) {
  const [row] = await db
    .select()
    .from(lendingApplicationSettings)
    .where(eq(lendingApplicationSettings.tenantId, tenantId));
  return row;
}

/** Settings/Application/CoApplicant: the tenant's co-applicant options (the defaults until set). */
export async function coApplicantSettings({ db }: Deps, tenantId: string): Promise<CoApplicantSettings> {
  return (await settingsRow(db, tenantId))?.coApplicant ?? DEFAULT_CO_APPLICANT_SETTINGS;
}

/** Vendors/GetSettings: the tenant's vendor options (the defaults until set). */
export async function vendorSettings({ db }: Deps, tenantId: string): Promise<VendorSettings> {
  return (await settingsRow(db, tenantId))?.vendors ?? DEFAULT_VENDOR_SETTINGS;
}

/** Sets one group of the tenant's application settings (the operator); answers what is set now. */
export async function putApplicationSettings<K extends 'coApplicant' | 'vendors'>(
  { db }: Deps,
  tenantId: string,
  group: K,
  settings: NonNullable<(typeof lendingApplicationSettings.$inferInsert)[K]>,
) {
  await requireTenant(db, tenantId);
  await db
    .insert(lendingApplicationSettings)
    .values({ tenantId, [group]: settings })
    .onConflictDoUpdate({
      target: lendingApplicationSettings.tenantId,
      set: { [group]: settings, updatedAt: new Date() },
    });
  return settings;
}

/**
 * 400 naming the co-applicant's fields the tenant's settings require and lacks, or a relationship not
 * offered; 409 `co_applicant_not_allowed` when the tenant allows none (PUT Customer/Loans/{loanId}/CoApplicant).
 */
export async function refuseCoApplicantBySettings(
  deps: Deps,
  tenantId: string,
  coApplicant: Partial<Record<CoApplicantOptionalField, string | undefined>>,
): Promise<void> {
  const settings = await coApplicantSettings(deps, tenantId);
  if (!settings.allowed) {
    throw Refusal.conflict('co_applicant_not_allowed', 'The tenant’s loans take no co-applicant');
  }
  const problems = coApplicantProblems(settings, coApplicant);
  if (problems.length > 0) throw Refusal.validation(problems);
}

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
export async function activeVendors({ db }: Deps, tenantId: string) {
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
  tenantId: string,
  vendorId: string,
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
  tenantId: string,
  filter: { box?: BoundingBox | undefined; vendorId?: string | undefined },
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
async function allVendors({ db }: Deps, tenantId: string): Promise<Vendor[]> {
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
  tenantId: string,
  vendor: Vendor,
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

// --- seeding ----------------------------------------------------------------------------------------

/** Runs one write of a seed; its refused fields are named by their place in the seed (`vendors.2.stores.0.storeId`). */
async function inSeed<T>(place: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof Refusal && error.status === 400 && error.fields) {
      throw Refusal.validation(error.fields.map((field) => ({ ...field, field: `${place}.${field.field}` })));
    }
    throw error;
  }
}

/**
 * Writes a seed file's reference data into a tenant (`npm run admin -- lending:seed-reference-data`):
 * each dictionary and vendor it names is created or replaced (parents before their children), the
 * settings it gives are set; what it does not name is left as it is. Running it twice changes nothing.
 */
export async function seedReferenceData(deps: Deps, tenantId: string, seed: ReferenceDataSeed) {
  await requireTenant(deps.db, tenantId);
  const pending = seed.dictionaries.map((dictionary, index) => ({ dictionary, index }));
  const written = new Set<string>();
  while (pending.length > 0) {
    const ready = pending.findIndex(
      ({ dictionary }) =>
        dictionary.parent === undefined ||
        written.has(dictionary.parent) ||
        !pending.some((other) => other.dictionary.name === dictionary.parent),
    );
    const [next] = pending.splice(Math.max(ready, 0), 1);
    const { dictionary, index } = next!;
    await inSeed(`dictionaries.${index}`, () => putDictionary(deps, tenantId, dictionary));
    written.add(dictionary.name);
  }
  if (seed.coApplicant) await putApplicationSettings(deps, tenantId, 'coApplicant', seed.coApplicant);
  if (seed.vendorSettings) await putApplicationSettings(deps, tenantId, 'vendors', seed.vendorSettings);
  for (const [index, vendor] of seed.vendors.entries()) {
    await inSeed(`vendors.${index}`, () => putVendor(deps, tenantId, vendor));
  }
  return {
    dictionaries: seed.dictionaries.map((dictionary) => dictionary.name),
    vendors: seed.vendors.map((vendor) => vendor.vendorId),
    settings: [...(seed.coApplicant ? ['coApplicant'] : []), ...(seed.vendorSettings ? ['vendors'] : [])],
  };
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
  const settings = await vendorSettings({ db }, tenantId);
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

/** The point of sale a loan was created with; null when it named none. */
export async function pointOfSaleOfLoan(
  db: Database,
  tenantId: string,
  loanId: string,
): Promise<PointOfSale | null> {
  const [row] = await db
    .select({
      vendorId: lendingLoanPointsOfSale.vendorId,
      vendorName: lendingLoanPointsOfSale.vendorName,
      storeId: lendingLoanPointsOfSale.storeId,
      storeName: lendingLoanPointsOfSale.storeName,
    })
    .from(lendingLoanPointsOfSale)
    .where(and(eq(lendingLoanPointsOfSale.tenantId, tenantId), eq(lendingLoanPointsOfSale.loanId, loanId)));
  return row ?? null;
}

/** Everything of a tenant's reference data, inactive vendors and stores too (the operator's view). */
export async function referenceDataOfTenant(deps: Deps, tenantId: string) {
  await requireTenant(deps.db, tenantId);
  return {
    dictionaries: (await dictionaryValues(deps, tenantId)).dictionaries,
    coApplicant: await coApplicantSettings(deps, tenantId),
    vendorSettings: await vendorSettings(deps, tenantId),
    vendors: await allVendors(deps, tenantId),
  };
}
