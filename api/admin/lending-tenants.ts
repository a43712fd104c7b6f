import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { lending } from '../../application/lending/index.ts';
import { LENDING_PERMISSIONS } from '../../credentials/lending/api-keys.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';

/**
 * Operator endpoints of the lending platform (decision 0037): tenants (each with its staging twin),
 * their API keys, branch offices and cancellation reasons. The twin of `npm run admin -- lending:*`.
 */
const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } });
const tenantParams = z.object({ tenantId: z.string().min(1).max(100) });

const createTenantRoute = createRoute({
  method: 'post',
  path: '/lending/tenants',
  tags: ['Admin'],
  summary: 'Create a lending tenant and its staging tenant',
  description: '409 `site_domain_taken` when a site domain belongs to another tenant.',
  request: {
    body: jsonBody(
      z.object({
        name: z.string().trim().min(1).max(200).openapi({ example: 'Acme Loans' }),
        siteDomains: z
          .array(z.string().max(253))
          .max(20)
          .optional()
          .openapi({ example: ['loans.acme.example'] }),
        stagingSiteDomains: z.array(z.string().max(253)).max(20).optional(),
        features: z
          .object({ stateManagement: z.boolean().optional(), multipleOffers: z.boolean().optional() })
          .optional(),
        disclaimer: z
          .object({
            required: z.boolean().optional(),
            version: z.string().min(1).max(50).optional(),
            text: z.string().min(1).max(20_000).optional(),
          })
          .optional(),
        states: z
          .array(z.string().regex(/^[A-Z]{2}$/))
          .max(100)
          .optional()
          .openapi({ example: ['CA', 'NY'] }),
      }),
    ),
  },
  responses: {
    201: {
      description: 'Created',
      content: json(
        z
          .object({
            tenantId: z.string(),
            stagingTenantId: z.string(),
            name: z.string(),
            siteDomains: z.array(z.string()),
            stagingSiteDomains: z.array(z.string()),
          })
          .passthrough(),
      ),
    },
    ...errorResponses,
    409: { description: 'Site domain taken', content: errorResponses[400].content },
  },
});

const getTenantRoute = createRoute({
  method: 'get',
  path: '/lending/tenants/{tenantId}',
  tags: ['Admin'],
  summary: 'Read a lending tenant',
  request: { params: tenantParams },
  responses: {
    200: { description: 'The tenant', content: json(z.object({}).passthrough()) },
    ...errorResponses,
  },
});

const issuedKeySchema = z
  .object({
    keyId: z.string(),
    tenantId: z.string(),
    permissions: z.array(z.enum(LENDING_PERMISSIONS)),
    label: z.string(),
    expiresAt: z.string(),
    apiKey: z.string().openapi({ description: 'The `lender_ApiKey`; shown once, only its digest is kept' }),
  })
  .openapi('IssuedLendingApiKey');

const issueKeyRoute = createRoute({
  method: 'post',
  path: '/lending/tenants/{tenantId}/api-keys',
  tags: ['Admin'],
  summary: 'Issue a lender_ApiKey',
  request: {
    params: tenantParams,
    body: jsonBody(
      z.object({
        permissions: z
          .array(z.enum(LENDING_PERMISSIONS))
          .min(1)
          .openapi({ example: ['front_office'] }),
        label: z.string().trim().min(1).max(200).optional().openapi({ example: 'front site' }),
        expiresAt: z.iso
          .datetime({ offset: true })
          .optional()
          .openapi({ description: 'Default: a year from now', example: '2027-11-24T00:00:00Z' }),
      }),
    ),
  },
  responses: { 201: { description: 'Issued', content: json(issuedKeySchema) }, ...errorResponses },
});

const revokeKeyRoute = createRoute({
  method: 'delete',
  path: '/lending/api-keys/{keyId}',
  tags: ['Admin'],
  summary: 'Revoke a lender_ApiKey',
  request: { params: z.object({ keyId: z.string().min(1).max(100) }) },
  responses: { 204: { description: 'Revoked' }, ...errorResponses },
});

const unlockLoginRoute = createRoute({
  method: 'post',
  path: '/lending/tenants/{tenantId}/login-unlocks',
  tags: ['Admin'],
  summary: 'Lift User/Login’s block or lock of a login',
  description:
    'Forgets the failed logins of `login` in the tenant (docs/security.md): a blocked (429) or locked (423) ' +
    'login may log in again. `unlocked` is false when it was neither.',
  request: {
    params: tenantParams,
    body: jsonBody(z.object({ login: z.string().trim().min(1).max(200) })),
  },
  responses: {
    200: { description: 'Done', content: json(z.object({ unlocked: z.boolean() })) },
    ...errorResponses,
  },
});

const addBranchOfficeRoute = createRoute({
  method: 'post',
  path: '/lending/tenants/{tenantId}/branch-offices',
  tags: ['Admin'],
  summary: 'Add a branch office',
  request: {
    params: tenantParams,
    body: jsonBody(
      z.object({
        name: z.string().trim().min(1).max(200),
        address: z.string().trim().max(500).optional(),
        phone: z.string().trim().max(50).optional(),
      }),
    ),
  },
  responses: { 201: { description: 'Added', content: json(z.object({}).passthrough()) }, ...errorResponses },
});

const addReasonRoute = createRoute({
  method: 'post',
  path: '/lending/tenants/{tenantId}/cancellation-reasons',
  tags: ['Admin'],
  summary: 'Add a cancellation reason',
  request: {
    params: tenantParams,
    body: jsonBody(z.object({ name: z.string().trim().min(1).max(200), frontOffice: z.boolean() })),
  },
  responses: { 201: { description: 'Added', content: json(z.object({}).passthrough()) }, ...errorResponses },
});

export function registerLendingTenantAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createTenantRoute, async (c) =>
    c.json(await lending.createTenant(c.get('deps'), c.req.valid('json')), 201),
  );
  app.openapi(getTenantRoute, async (c) =>
    c.json(await lending.readTenant(c.get('deps'), { tenantId: c.req.valid('param').tenantId }), 200),
  );
  app.openapi(issueKeyRoute, async (c) => {
    const input = { tenantId: c.req.valid('param').tenantId, ...c.req.valid('json') };
    return c.json(await lending.issueTenantApiKey(c.get('deps'), input), 201);
  });
  app.openapi(revokeKeyRoute, async (c) => {
    await lending.revokeTenantApiKey(c.get('deps'), { keyId: c.req.valid('param').keyId });
    return c.body(null, 204);
  });
  app.openapi(unlockLoginRoute, async (c) => {
    const { tenantId } = c.req.valid('param');
    return c.json(
      await lending.unlockLogin(c.get('deps'), { tenantId, login: c.req.valid('json').login }),
      200,
    );
  });
  app.openapi(addBranchOfficeRoute, async (c) => {
    const { tenantId } = c.req.valid('param');
    return c.json(
      await lending.addTenantBranchOffice(c.get('deps'), { tenantId, office: c.req.valid('json') }),
      201,
    );
  });
  app.openapi(addReasonRoute, async (c) => {
    const { tenantId } = c.req.valid('param');
    return c.json(
      await lending.addTenantCancellationReason(c.get('deps'), { tenantId, reason: c.req.valid('json') }),
      201,
    );
  });
}
