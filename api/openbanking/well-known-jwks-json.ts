import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { defineOperation } from '../shared/operation.ts';
import { NO_SECURITY } from './identity.ts';

/**
 * `GET /api/6/.well-known/jwks.json` (and the spec's second path `jwks.json2`, the same document): the
 * public keys that verify the gateway's user tokens and signed webhook payloads. It holds the current key
 * and keys retired less than OPENBANKING_SIGNING_KEY_RETENTION ago; pick the key by the JWS header's `kid`.
 */

const jwkSchema = z
  .object({
    kty: z.string().openapi({ example: 'EC' }),
    crv: z.string().optional().openapi({ example: 'P-256' }),
    x: z.string().optional(),
    y: z.string().optional(),
    kid: z.string().openapi({ example: 'obk_20261123_3f2a9c0d' }),
    alg: z.string().openapi({ example: 'ES256' }),
    use: z.literal('sig'),
  })
  .openapi('Jwk');

const jwksSchema = z.object({ keys: z.array(jwkSchema) }).openapi('Jwks');

/** The one key-set operation, at the spec's two paths (each its own operation with its own operationId). */
export const jwksOperation = (
  path: '/.well-known/jwks.json' | '/.well-known/jwks.json2',
  operationId: string,
) =>
  defineOperation({
    versions: [6],
    route: () =>
      createRoute({
        method: 'get',
        path,
        operationId,
        tags: ['Keys'],
        summary: 'Published key set (JWKS)',
        description:
          'Public keys (ES256) for verifying user tokens and webhook signatures: the current key and recently retired ' +
          'ones. Cacheable for 5 minutes; refetch when a `kid` is unknown.',
        security: NO_SECURITY,
        responses: {
          200: { description: 'The key set', content: { 'application/json': { schema: jwksSchema } } },
        },
      }),
    handler: () => async (c) => {
      c.header('cache-control', 'public, max-age=300');
      // jose types every JWK member as optional; an exported EC public key always has kty, crv, x and y.
      return c.json((await openbanking.publishedKeys(c.get('deps'))) as z.infer<typeof jwksSchema>, 200);
    },
  });

export const wellKnownJwksJsonOperation = jwksOperation('/.well-known/jwks.json', 'jwks');
