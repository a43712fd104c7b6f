import { z } from '@hono/zod-openapi';
import {
  CO_APPLICANT_OPTIONAL_FIELDS,
  DICTIONARY_NAME_PATTERN,
  DICTIONARY_NAME_RULE,
  REFERENCE_CODE_PATTERN,
  REFERENCE_CODE_RULE,
} from '../../domain/lending/reference-data.ts';

/**
 * The tenant's reference data as the API answers it (application/lending/reference-data.ts):
 * dictionaries, the co-applicant and vendor settings, vendors and stores, a loan's point of sale.
 */

/**
 * The domain's rules as schemas of this module's zod (which carries `.openapi`): a schema built in
 * domain/ before @hono/zod-openapi was loaded has none.
 */
export const dictionaryNameSchema = () => z.string().regex(DICTIONARY_NAME_PATTERN, DICTIONARY_NAME_RULE);
export const referenceCodeSchema = () => z.string().regex(REFERENCE_CODE_PATTERN, REFERENCE_CODE_RULE);

export const dictionaryNameParam = dictionaryNameSchema().openapi({ example: 'Cities' });

export const dictionaryValueAnswerSchema = z
  .object({
    code: z.string().openapi({ example: 'austin' }),
    name: z.string().openapi({ example: 'Austin' }),
    parentCode: z
      .string()
      .nullable()
      .openapi({ description: 'The code of its value in the parent dictionary', example: 'TX' }),
  })
  .openapi('DictionaryValue');

export const dictionaryAnswerSchema = z
  .object({
    name: z.string().openapi({ example: 'Cities' }),
    parent: z
      .string()
      .nullable()
      .openapi({ description: 'The dictionary `parentCode` points into', example: 'Regions' }),
    values: z.array(dictionaryValueAnswerSchema),
  })
  .openapi('Dictionary');

export const coApplicantSettingsAnswerSchema = z
  .object({
    allowed: z.boolean().openapi({ description: 'false: PUT CoApplicant is 409 `co_applicant_not_allowed`' }),
    required: z
      .boolean()
      .openapi({ description: 'The front site asks for a co-applicant before Process (informative)' }),
    requiredFields: z
      .array(z.enum(CO_APPLICANT_OPTIONAL_FIELDS))
      .openapi({ description: 'Fields PUT CoApplicant requires besides the names', example: ['birthDate'] }),
    relationships: z
      .array(z.string())
      .openapi({ description: 'The `relationship` values offered; empty: free text', example: ['spouse'] }),
  })
  .openapi('CoApplicantSettings');

export const vendorSettingsAnswerSchema = z
  .object({
    vendorRequired: z.boolean().openapi({ description: 'Loans/Create must name `vendorId`' }),
    storeRequired: z.boolean().openapi({ description: 'A loan naming a vendor must name `storeId` too' }),
    showStoresMap: z.boolean().openapi({ description: 'The front site shows Vendors/StoresMap' }),
  })
  .openapi('VendorSettings');

export const storeAnswerSchema = z
  .object({
    storeId: z.string().openapi({ example: 'lsm-austin' }),
    vendorId: z.string().openapi({ example: 'lone-star-motors' }),
    name: z.string().openapi({ example: 'Lone Star Motors Austin' }),
    address: z.string().openapi({ example: '4500 S Lamar Blvd, Austin, TX 78745' }),
    city: z.string().nullable(),
    latitude: z.number().openapi({ example: 30.2296 }),
    longitude: z.number().openapi({ example: -97.7901 }),
  })
  .openapi('Store');

/** The point of sale fields of Loans/Create (customer and management). */
export const pointOfSaleBodyFields = {
  vendorId: referenceCodeSchema().optional().openapi({
    description: 'The vendor the loan is sold at (Vendors/GetVendors)',
    example: 'lone-star-motors',
  }),
  storeId: referenceCodeSchema().optional().openapi({
    description: 'A store of that vendor (Vendors/GetStores/{vendorId})',
    example: 'lsm-austin',
  }),
};

export const pointOfSaleSchema = z
  .object({
    vendorId: z.string(),
    vendorName: z.string(),
    storeId: z.string().nullable(),
    storeName: z.string().nullable(),
  })
  .openapi('LoanPointOfSale', {
    description: 'The vendor and store the loan was sold at, as named when it was created',
  });
