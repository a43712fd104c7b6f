import type { ReferenceDataSeed } from '../../domain/lending/reference-data.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import {
  coApplicantSettings,
  dictionaryValues,
  putApplicationSettings,
  putDictionary,
  requireTenant,
  vendorSettings,
} from './reference-data.ts';
import { allVendors, putVendor } from './vendors.ts';

/** A tenant's reference data as a whole: written from a seed file, read as the operator sees it. */

type Deps = Pick<UseCaseDeps, 'db'>;

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
 * settings it gives are set; what it does not name is left as it is. Running it twice changes nothing;
 * a refused seed writes nothing.
 */
export async function seedReferenceData(
  deps: Deps,
  { tenantId, seed }: { tenantId: string; seed: ReferenceDataSeed },
) {
  await requireTenant(deps.db, tenantId);
  // One transaction (decision 0080): a seed refused half-way (a vendor's bad store) leaves nothing behind.
  await deps.db.transaction((tx) => writeSeed({ db: tx }, tenantId, seed));
  return {
    dictionaries: seed.dictionaries.map((dictionary) => dictionary.name),
    vendors: seed.vendors.map((vendor) => vendor.vendorId),
    settings: [...(seed.coApplicant ? ['coApplicant'] : []), ...(seed.vendorSettings ? ['vendors'] : [])],
  };
}

async function writeSeed(deps: Deps, tenantId: string, seed: ReferenceDataSeed) {
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
    await inSeed(`dictionaries.${index}`, () => putDictionary(deps, { tenantId, dictionary }));
    written.add(dictionary.name);
  }
  if (seed.coApplicant)
    await putApplicationSettings(deps, { tenantId, group: 'coApplicant', settings: seed.coApplicant });
  if (seed.vendorSettings)
    await putApplicationSettings(deps, { tenantId, group: 'vendors', settings: seed.vendorSettings });
  for (const [index, vendor] of seed.vendors.entries()) {
    await inSeed(`vendors.${index}`, () => putVendor(deps, { tenantId, vendor }));
  }
}

/** Everything of a tenant's reference data, inactive vendors and stores too (the operator's view). */
export async function referenceDataOfTenant(deps: Deps, { tenantId }: { tenantId: string }) {
  await requireTenant(deps.db, tenantId);
  return {
    dictionaries: (await dictionaryValues(deps, { tenantId })).dictionaries,
    coApplicant: await coApplicantSettings(deps, { tenantId }),
    vendorSettings: await vendorSettings(deps, { tenantId }),
    vendors: await allVendors(deps, tenantId),
  };
}
