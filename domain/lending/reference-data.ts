import { z } from 'zod';

/**
 * A lending tenant's reference data (issue 21; docs/lending.md#dictionaries-settings-vendors): its
 * dictionaries (Dictionary/GetValues, GetFilteredValues), its application settings (the co-applicant
 * options of Settings/Application/CoApplicant, the vendor options of Vendors/GetSettings), and its
 * vendors with their stores (Vendors/*). The operator writes them (api/admin/lending-reference-data.ts,
 * `npm run admin -- lending:*`); the spec names only the endpoints, every field here is design. Pure.
 */

/** A dictionary's name: letters and digits, starting with a letter (`Cities`, `EmploymentTypes`). */
export const DICTIONARY_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9]{0,49}$/;
/** A value's code, a vendor's or a store's id: chosen by the operator, stable across re-seeding. */
export const REFERENCE_CODE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,49}$/;

export const DICTIONARY_NAME_RULE = 'letters and digits starting with a letter (at most 50)';
export const REFERENCE_CODE_RULE = 'letters, digits, _ . - (at most 50, not starting with a sign)';
export const dictionaryNameSchema = z.string().regex(DICTIONARY_NAME_PATTERN, DICTIONARY_NAME_RULE);
export const referenceCodeSchema = z.string().regex(REFERENCE_CODE_PATTERN, REFERENCE_CODE_RULE);

const label = z.string().trim().min(1).max(200);

export const dictionaryValueSchema = z
  .object({
    code: referenceCodeSchema,
    name: label,
    /** The code of the value of the parent dictionary this value belongs to (a city's region). */
    parentCode: referenceCodeSchema.optional(),
  })
  .strict();
export type DictionaryValue = z.infer<typeof dictionaryValueSchema>;

/** A dictionary as the operator writes it: its values in display order. */
export const dictionaryFieldsSchema = z
  .object({
    /** Another dictionary of the tenant whose codes the values' `parentCode` names (Regions for Cities). */
    parent: dictionaryNameSchema.optional(),
    values: z.array(dictionaryValueSchema).max(5000),
  })
  .strict();

export const dictionarySchema = dictionaryFieldsSchema.extend({ name: dictionaryNameSchema });
export type Dictionary = z.infer<typeof dictionarySchema>;

/** What is wrong inside one dictionary (duplicate codes, a parent code without a parent), by field. */
export function dictionaryProblems(dictionary: Dictionary): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  const seen = new Set<string>();
  dictionary.values.forEach((value, index) => {
    if (seen.has(value.code)) problems.push({ field: `values.${index}.code`, message: 'appears twice' });
    seen.add(value.code);
    if (value.parentCode !== undefined && dictionary.parent === undefined) {
      problems.push({ field: `values.${index}.parentCode`, message: 'the dictionary has no parent' });
    }
  });
  if (dictionary.parent === dictionary.name) {
    problems.push({ field: 'parent', message: 'a dictionary cannot be its own parent' });
  }
  return problems;
}

/** The co-applicant's optional fields (Customer/Loans/{loanId}/CoApplicant; first and last name always). */
export const CO_APPLICANT_OPTIONAL_FIELDS = ['birthDate', 'ssn', 'email', 'phone', 'relationship'] as const;
export type CoApplicantOptionalField = (typeof CO_APPLICANT_OPTIONAL_FIELDS)[number];

/** The co-applicant options of the application flow (Settings/Application/CoApplicant). */
export const coApplicantSettingsSchema = z
  .object({
    /** Whether a loan may have a co-applicant: false refuses PUT CoApplicant. */
    allowed: z.boolean(),
    /** Whether the front site must ask for one before Process (informs the site; Process does not check). */
    required: z.boolean(),
    /** Optional fields PUT CoApplicant requires besides the names. */
    requiredFields: z.array(z.enum(CO_APPLICANT_OPTIONAL_FIELDS)).max(5),
    /** Codes of `relationship` offered (empty: free text). */
    relationships: z.array(z.string().trim().min(1).max(50)).max(50),
  })
  .strict()
  .refine((settings) => settings.allowed || !settings.required, {
    message: 'a required co-applicant must be allowed',
    path: ['required'],
  });
export type CoApplicantSettings = z.infer<typeof coApplicantSettingsSchema>;

/** A tenant that has set nothing: a co-applicant is allowed, never required, names only. */
export const DEFAULT_CO_APPLICANT_SETTINGS: CoApplicantSettings = {
  allowed: true,
  required: false,
  requiredFields: [],
  relationships: [],
};

/** What a co-applicant lacks under the settings: the field and why (PUT CoApplicant's 400). */
export function coApplicantProblems(
  settings: CoApplicantSettings,
  coApplicant: Partial<Record<CoApplicantOptionalField, string | undefined>>,
): { field: string; message: string }[] {
  const missing = settings.requiredFields
    .filter((field) => coApplicant[field] === undefined)
    .map((field) => ({ field, message: 'required by the tenant’s co-applicant settings' }));
  const relationship = coApplicant.relationship;
  if (
    relationship !== undefined &&
    settings.relationships.length > 0 &&
    !settings.relationships.includes(relationship)
  ) {
    missing.push({ field: 'relationship', message: `one of ${settings.relationships.join(', ')}` });
  }
  return missing;
}

/** The vendor options of the application flow (Vendors/GetSettings). */
export const vendorSettingsSchema = z
  .object({
    /** A loan must name the vendor it was sold at (Loans/Create's `vendorId`). */
    vendorRequired: z.boolean(),
    /** A loan naming a vendor must name its store too (`storeId`). */
    storeRequired: z.boolean(),
    /** The front site shows the stores on a map (Vendors/StoresMap). */
    showStoresMap: z.boolean(),
  })
  .strict();
export type VendorSettings = z.infer<typeof vendorSettingsSchema>;

export const DEFAULT_VENDOR_SETTINGS: VendorSettings = {
  vendorRequired: false,
  storeRequired: false,
  showStoresMap: true,
};

const latitude = z.number().min(-90).max(90);
const longitude = z.number().min(-180).max(180);

export const storeSchema = z
  .object({
    storeId: referenceCodeSchema,
    name: label,
    address: z.string().trim().min(1).max(500),
    city: z.string().trim().min(1).max(200).optional(),
    latitude,
    longitude,
    active: z.boolean().default(true),
  })
  .strict();
export type Store = z.infer<typeof storeSchema>;

/** A vendor as the operator writes it: its stores replace the ones it had. */
export const vendorFieldsSchema = z
  .object({
    name: label,
    active: z.boolean().default(true),
    stores: z.array(storeSchema).max(2000).default([]),
  })
  .strict();
export const vendorSchema = vendorFieldsSchema.extend({ vendorId: referenceCodeSchema });
export type Vendor = z.infer<typeof vendorSchema>;

/** Store ids are unique per tenant (a loan names a store by its id): duplicates inside one vendor. */
export function vendorProblems(vendor: Pick<Vendor, 'stores'>): { field: string; message: string }[] {
  const seen = new Set<string>();
  return vendor.stores.flatMap((store, index) => {
    const duplicate = seen.has(store.storeId);
    seen.add(store.storeId);
    return duplicate ? [{ field: `stores.${index}.storeId`, message: 'appears twice' }] : [];
  });
}

/** A map's bounding box; `west > east` crosses the antimeridian. */
export interface BoundingBox {
  south: number;
  west: number;
  north: number;
  east: number;
}

export function insideBox(box: BoundingBox, point: { latitude: number; longitude: number }): boolean {
  if (point.latitude < box.south || point.latitude > box.north) return false;
  return box.west <= box.east
    ? point.longitude >= box.west && point.longitude <= box.east
    : point.longitude >= box.west || point.longitude <= box.east;
}

/** The file `npm run admin -- lending:seed-reference-data` reads (datasets/lending-reference-data.json). */
export const referenceDataSeedSchema = z
  .object({
    dictionaries: z.array(dictionarySchema).max(100).default([]),
    coApplicant: coApplicantSettingsSchema.optional(),
    vendorSettings: vendorSettingsSchema.optional(),
    vendors: z.array(vendorSchema).max(1000).default([]),
  })
  .strict();
export type ReferenceDataSeed = z.infer<typeof referenceDataSeedSchema>;
