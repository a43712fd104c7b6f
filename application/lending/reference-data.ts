import { and, asc, eq, ilike, inArray, type SQL } from 'drizzle-orm';
import { findLendingTenant } from '../../credentials/lending/tenants.ts';
import type { Database } from '../../db/client.ts';
import {
  lendingApplicationSettings,
  lendingDictionaries,
  lendingDictionaryValues,
} from '../../db/schema/lending-reference-data.ts';
import {
  type CoApplicantOptionalField,
  type CoApplicantSettings,
  coApplicantProblems,
  DEFAULT_CO_APPLICANT_SETTINGS,
  DEFAULT_VENDOR_SETTINGS,
  type Dictionary,
  dictionaryProblems,
  type VendorSettings,
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

export async function requireTenant(db: Database, tenantId: string): Promise<void> {
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
  { tenantId, names }: { tenantId: string; names?: readonly string[] | undefined },
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
  { tenantId, ...filter }: DictionaryFilter & { tenantId: string },
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
  { tenantId, dictionary }: { tenantId: string; dictionary: Dictionary },
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
  const [view] = (await dictionaryValues({ db }, { tenantId, names: [dictionary.name] })).dictionaries;
  return { dictionary: view!, created };
}

/** Removes a dictionary; 404 when the tenant has none of that name, 409 while another names it as parent. */
export async function deleteDictionary(
  { db }: Deps,
  { tenantId, name }: { tenantId: string; name: string },
): Promise<void> {
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
export async function coApplicantSettings(
  { db }: Deps,
  { tenantId }: { tenantId: string },
): Promise<CoApplicantSettings> {
  return (await settingsRow(db, tenantId))?.coApplicant ?? DEFAULT_CO_APPLICANT_SETTINGS;
}

/** Vendors/GetSettings: the tenant's vendor options (the defaults until set). */
export async function vendorSettings(
  { db }: Deps,
  { tenantId }: { tenantId: string },
): Promise<VendorSettings> {
  return (await settingsRow(db, tenantId))?.vendors ?? DEFAULT_VENDOR_SETTINGS;
}

/** Sets one group of the tenant's application settings (the operator); answers what is set now. */
export async function putApplicationSettings<K extends 'coApplicant' | 'vendors'>(
  { db }: Deps,
  {
    tenantId,
    group,
    settings,
  }: {
    tenantId: string;
    group: K;
    settings: NonNullable<(typeof lendingApplicationSettings.$inferInsert)[K]>;
  },
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
  const settings = await coApplicantSettings(deps, { tenantId });
  if (!settings.allowed) {
    throw Refusal.conflict('co_applicant_not_allowed', 'The tenant’s loans take no co-applicant');
  }
  const problems = coApplicantProblems(settings, coApplicant);
  if (problems.length > 0) throw Refusal.validation(problems);
}
