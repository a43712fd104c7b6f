import { createHash, timingSafeEqual } from 'node:crypto';
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { createMiddleware } from 'hono/factory';
import { issueAccessToken, revokeAccessToken } from '../messaging/auth.ts';
import type { AppEnv } from '../shared/context.ts';
import { ApiError, errorResponses, validationHook } from '../shared/errors.ts';

/**
 * Operator endpoints (the HTTP twin of `npm run admin`), for when the embedded PGlite database is
 * held by the running platform. Enabled only when ADMIN_TOKEN is set; otherwise every path is 404.
 */
const digest = (text: string) => createHash('sha256').update(text).digest();

const requireAdminToken = createMiddleware<AppEnv>(async (c, next) => {
  const expected = c.get('deps').config.ADMIN_TOKEN;
  if (!expected) throw ApiError.notFound(`${c.req.method} ${c.req.path}`);
  const presented = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
  // Digests have equal length, so the comparison takes the same time whatever was presented.
  if (!presented || !timingSafeEqual(digest(presented), digest(expected))) {
    throw ApiError.unauthorized('Missing or invalid admin token (Authorization: Bearer ...)');
  }
  await next();
});

const issuedTokenSchema = z
  .object({
    accountId: z.string().openapi({ example: 'acc_3f2a...' }),
    tokenId: z.string().openapi({ example: 'tok_9b1c...' }),
    token: z.string().openapi({ description: 'The access token; shown once, only its hash is kept' }),
  })
  .openapi('IssuedToken');

const createAccountRoute = createRoute({
  method: 'post',
  path: '/messaging/accounts',
  tags: ['Admin'],
  summary: 'Create a messaging account and its first access token',
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z.object({ name: z.string().min(1).max(200).openapi({ example: 'Acme Ltd' }) }),
        },
      },
    },
  },
  responses: {
    201: { description: 'Created', content: { 'application/json': { schema: issuedTokenSchema } } },
    ...errorResponses,
  },
});

const revokeTokenRoute = createRoute({
  method: 'delete',
  path: '/messaging/tokens/{tokenId}',
  tags: ['Admin'],
  summary: 'Revoke an access token',
  request: { params: z.object({ tokenId: z.string().min(1).max(100) }) },
  responses: { 204: { description: 'Revoked' }, ...errorResponses },
});

export function createAdminApi(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  app.use('*', requireAdminToken);

  app.openapi(createAccountRoute, async (c) => {
    const issued = await issueAccessToken(c.get('deps').db, {
      accountName: c.req.valid('json').name,
      label: 'admin',
    });
    return c.json(issued, 201);
  });

  app.openapi(revokeTokenRoute, async (c) => {
    const revoked = await revokeAccessToken(c.get('deps').db, c.req.valid('param').tokenId);
    if (!revoked) throw ApiError.notFound('Active token');
    return c.body(null, 204);
  });
  return app;
}
