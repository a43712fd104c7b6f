import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { Refusal } from '../../application/shared/refusal.ts';
import { issueAccountToken } from '../../credentials/messaging/access-tokens.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';

/**
 * Operator endpoint: another access token for an existing messaging account (the HTTP twin of
 * `npm run admin -- messaging:token --account`, so the CLI can go through a running platform: decision 0080).
 */
const issueTokenRoute = createRoute({
  method: 'post',
  path: '/messaging/accounts/{accountId}/tokens',
  tags: ['Admin'],
  summary: 'Issue another access token for a messaging account',
  description: 'Answers the token once; only its hash is kept. 404 for an unknown account.',
  request: {
    params: z.object({ accountId: z.string().min(1).max(100).openapi({ example: 'acc_3f2a...' }) }),
    body: jsonBody(z.object({ label: z.string().trim().min(1).max(100).default('admin') })),
  },
  responses: {
    201: {
      description: 'Issued',
      content: {
        'application/json': {
          schema: z.object({ accountId: z.string(), tokenId: z.string(), token: z.string() }),
        },
      },
    },
    ...errorResponses,
  },
});

export function registerMessagingTokenAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(issueTokenRoute, async (c) => {
    const issued = await issueAccountToken(c.get('deps').db, {
      accountId: c.req.valid('param').accountId,
      label: c.req.valid('json').label,
    });
    if (!issued) throw Refusal.notFound('Messaging account');
    return c.json(issued, 201);
  });
}
