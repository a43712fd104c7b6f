import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { lending } from '../../application/lending/index.ts';
import {
  coApplicantSettingsSchema,
  dictionaryFieldsSchema,
  referenceDataSeedSchema,
  vendorFieldsSchema,
  vendorSettingsSchema,
} from '../../domain/lending/reference-data.ts';
import { dictionaryNameSchema, referenceCodeSchema } from '../lending/reference-data-schemas.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';

/**
 * Operator endpoints of a lending tenant's reference data (the twin of `npm run admin --
 * lending:reference-data` and `lending:seed-reference-data`): dictionaries, co-applicant and vendor
 * settings, vendors with their stores. PUTs create or replace the whole thing they name.
 */
const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } });
const tenantId = z
  .string()
  .min(1)
  .max(100)
  .openapi({ param: { name: 'tenantId', in: 'path' } });
const anything = json(z.object({}).passthrough());
const putAnswers = {
  200: { description: 'Replaced', content: anything },
  201: { description: 'Created', content: anything },
  ...errorResponses,
};

const readRoute = createRoute({
  method: 'get',
  path: '/lending/tenants/{tenantId}/reference-data',
  tags: ['Admin'],
  summary: 'A lending tenant’s reference data',
  description:
    'Dictionaries, co-applicant and vendor settings, vendors with all their stores (inactive too).',
  request: { params: z.object({ tenantId }) },
  responses: { 200: { description: 'The reference data', content: anything }, ...errorResponses },
});

const seedRoute = createRoute({
  method: 'post',
  path: '/lending/tenants/{tenantId}/reference-data',
  tags: ['Admin'],
  summary: 'Write reference data into a tenant (as the seed command does)',
  description:
    'Each dictionary and vendor of the body is created or replaced, each settings group given is set; the rest ' +
    'stays. The body has the shape of datasets/lending-reference-data.json.',
  request: { params: z.object({ tenantId }), body: jsonBody(referenceDataSeedSchema) },
  responses: { 200: { description: 'What was written', content: anything }, ...errorResponses },
});

const putDictionaryRoute = createRoute({
  method: 'put',
  path: '/lending/tenants/{tenantId}/dictionaries/{name}',
  tags: ['Admin'],
  summary: 'Create or replace a dictionary',
  description:
    '400 names the field: a code twice, `parent` not a dictionary of the tenant, a `parentCode` not a code of the parent.',
  request: {
    params: z.object({
      tenantId,
      name: dictionaryNameSchema().openapi({ param: { name: 'name', in: 'path' }, example: 'Cities' }),
    }),
    body: jsonBody(dictionaryFieldsSchema),
  },
  responses: putAnswers,
});

const deleteDictionaryRoute = createRoute({
  method: 'delete',
  path: '/lending/tenants/{tenantId}/dictionaries/{name}',
  tags: ['Admin'],
  summary: 'Remove a dictionary',
  description: '409 `dictionary_in_use` while another dictionary names it as its parent.',
  request: {
    params: z.object({
      tenantId,
      name: dictionaryNameSchema().openapi({ param: { name: 'name', in: 'path' } }),
    }),
  },
  responses: {
    204: { description: 'Removed' },
    ...errorResponses,
    409: { description: 'A child dictionary names it', content: errorResponses[400].content },
  },
});

const settingsRoute = <T extends z.ZodType>(path: string, summary: string, schema: T) =>
  createRoute({
    method: 'put',
    path: `/lending/tenants/{tenantId}/settings/${path}`,
    tags: ['Admin'],
    summary,
    request: { params: z.object({ tenantId }), body: jsonBody(schema) },
    responses: { 200: { description: 'Set', content: anything }, ...errorResponses },
  });
const coApplicantRoute = settingsRoute(
  'co-applicant',
  'Set the co-applicant options (Settings/Application/CoApplicant)',
  coApplicantSettingsSchema,
);
const vendorSettingsRoute = settingsRoute(
  'vendors',
  'Set the vendor options (Vendors/GetSettings)',
  vendorSettingsSchema,
);

const putVendorRoute = createRoute({
  method: 'put',
  path: '/lending/tenants/{tenantId}/vendors/{vendorId}',
  tags: ['Admin'],
  summary: 'Create or replace a vendor with its stores',
  description:
    'Stores it no longer lists are removed (loans keep the names they were sold under). 400 names ' +
    '`stores.<i>.storeId` for a store id twice or of another vendor of the tenant.',
  request: {
    params: z.object({
      tenantId,
      vendorId: referenceCodeSchema().openapi({
        param: { name: 'vendorId', in: 'path' },
        example: 'technomarket',
      }),
    }),
    body: jsonBody(vendorFieldsSchema),
  },
  responses: putAnswers,
});

export function registerLendingReferenceDataAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(readRoute, async (c) =>
    c.json(
      await lending.referenceDataOfTenant(c.get('deps'), { tenantId: c.req.valid('param').tenantId }),
      200,
    ),
  );
  app.openapi(seedRoute, async (c) =>
    c.json(
      await lending.seedReferenceData(c.get('deps'), {
        tenantId: c.req.valid('param').tenantId,
        seed: c.req.valid('json'),
      }),
      200,
    ),
  );
  app.openapi(putDictionaryRoute, async (c) => {
    const { tenantId, name } = c.req.valid('param');
    const saved = await lending.putDictionary(c.get('deps'), {
      tenantId,
      dictionary: { ...c.req.valid('json'), name },
    });
    return saved.created ? c.json(saved.dictionary, 201) : c.json(saved.dictionary, 200);
  });
  app.openapi(deleteDictionaryRoute, async (c) => {
    const { tenantId, name } = c.req.valid('param');
    await lending.deleteDictionary(c.get('deps'), { tenantId, name });
    return c.body(null, 204);
  });
  app.openapi(coApplicantRoute, async (c) => {
    const { tenantId } = c.req.valid('param');
    return c.json(
      await lending.putApplicationSettings(c.get('deps'), {
        tenantId,
        group: 'coApplicant',
        settings: c.req.valid('json'),
      }),
      200,
    );
  });
  app.openapi(vendorSettingsRoute, async (c) => {
    const { tenantId } = c.req.valid('param');
    return c.json(
      await lending.putApplicationSettings(c.get('deps'), {
        tenantId,
        group: 'vendors',
        settings: c.req.valid('json'),
      }),
      200,
    );
  });
  app.openapi(putVendorRoute, async (c) => {
    const { tenantId, vendorId } = c.req.valid('param');
    const saved = await lending.putVendor(c.get('deps'), {
      tenantId,
      vendor: { ...c.req.valid('json'), vendorId },
    });
    return saved.created ? c.json(saved.vendor, 201) : c.json(saved.vendor, 200);
  });
}
