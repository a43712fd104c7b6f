import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import type { AppEnv } from '../shared/context.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';

/**
 * Operator endpoints of the open-banking gateway (HTTP twin of `npm run admin -- openbanking:*`):
 * enrol an agent (agent hash + public hash), issue an admin hash (x-admin-hash), rotate the signing key.
 */

const createAgentRoute = createRoute({
  method: 'post',
  path: '/openbanking/agents',
  tags: ['Admin'],
  summary: 'Enrol an open-banking agent',
  description:
    'Creates an agent and answers its agentHash and publicHash once; only their digests are stored.',
  request: {
    body: jsonBody(
      z.object({
        name: z.string().trim().min(1).max(200).openapi({ example: 'Acme Ltd' }),
        email: z.email().max(254).optional(),
      }),
    ),
  },
  responses: {
    201: {
      description: 'Enrolled',
      content: {
        'application/json': {
          schema: z.object({
            agentId: z.string(),
            agentHash: z.string(),
            publicHash: z.string(),
            name: z.string(),
            createdAt: z.string(),
          }),
        },
      },
    },
    ...errorResponses,
  },
});

const createAdminHashRoute = createRoute({
  method: 'post',
  path: '/openbanking/admin-hashes',
  tags: ['Admin'],
  summary: 'Issue an open-banking admin hash (x-admin-hash)',
  request: {
    body: {
      required: false,
      content: {
        'application/json': {
          schema: z.object({
            label: z.string().min(1).max(100).optional().openapi({ example: 'back office' }),
          }),
        },
      },
    },
  },
  responses: {
    201: {
      description: 'Issued; shown once',
      content: {
        'application/json': { schema: z.object({ credentialId: z.string(), adminHash: z.string() }) },
      },
    },
    ...errorResponses,
  },
});

const rotateKeyRoute = createRoute({
  method: 'post',
  path: '/openbanking/signing-keys/rotate',
  tags: ['Admin'],
  summary: 'Rotate the open-banking signing key',
  description:
    'Makes a new key current; the previous one stays published in the JWKS for OPENBANKING_SIGNING_KEY_RETENTION.',
  responses: {
    200: {
      description: 'Rotated',
      content: {
        'application/json': {
          schema: z.object({ kid: z.string(), retiredKid: z.string().optional() }),
        },
      },
    },
    ...errorResponses,
  },
});

export function registerOpenBankingAdminRoutes(app: OpenAPIHono<AppEnv>): void {
  app.openapi(createAgentRoute, async (c) => {
    return c.json(await openbanking.enrolAgent(c.get('deps'), c.req.valid('json')), 201);
  });
  app.openapi(createAdminHashRoute, async (c) => {
    const label = c.req.valid('json')?.label;
    return c.json(await openbanking.issueAdminHash(c.get('deps'), { label }), 201);
  });
  app.openapi(rotateKeyRoute, async (c) => {
    return c.json(await openbanking.rotateSigningKey(c.get('deps')), 200);
  });
}
