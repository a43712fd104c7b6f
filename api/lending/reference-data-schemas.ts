import { z } from '@hono/zod-openapi';
import {
  CO_APPLICANT_OPTIONAL_FIELDS,
  dictionaryNameSchema,
  referenceCodeSchema,
} from '../../domain/lending/reference-data.ts';

/**
 * The tenant's reference data as the API answers it (application/lending/reference-data.ts):
 * dictionaries, the co-applicant and vendor settings, vendors and stores, a loan's point of sale.
 */

export const dictionaryNameParam = dictionaryNameSchema.openapi({ example: 'Cities' });

export const dictionaryValueAnswerSchema = z
  .object({
    code: z.string().openapi({ example: 'sofia' }),
    name: z.string().openapi({ example: 'Sofia' }),
    parentCode: z
      .string()
      .nullable()
      .openapi({ description: 'The code of its value in the parent dictionary', example: 'sofia-city' }),
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
    storeId: z.string().openapi({ example: 'techno-sofia-1' }),
    vendorId: z.string().openapi({ example: 'technomarket' }),
    name: z.string().openapi({ example: 'Technomarket Mall Sofia' }),
    address: z.string().openapi({ example: '101 Bulgaria Blvd, Sofia' }),
    city: z.string().nullable(),
    latitude: z.number().openapi({ example: 42.6627 }),
    longitude: z.number().openapi({ example: 23.2886 }),
  })
  .openapi('Store');

/** The point of sale fields of Loans/Create (customer and management). */
export const pointOfSaleBodyFields = {
  vendorId: referenceCodeSchema
    .optional()
    .openapi({ description: 'The vendor the loan is sold at (Vendors/GetVendors)', example: 'technomarket' }),
  storeId: referenceCodeSchema.optional().openapi({
    description: 'A store of that vendor (Vendors/GetStores/{vendorId})',
    example: 'techno-sofia-1',
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
