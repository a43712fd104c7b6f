import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { requireUserHash, security } from './identity.ts';

/**
 * `POST /api/{6,7,8}/usertoken`: a time-limited user token, an ES256 JWT signed with the gateway's current
 * key (kid in the header), verifiable with `/api/6/.well-known/jwks.json`. Lifetime OPENBANKING_USER_TOKEN_TTL
 * (default 15 minutes). Claims: iss `integration-platform/openbanking`, aud `openbanking:user`, sub the user
 * id, `agent` the agent id, iat, exp, jti. It is accepted as `Authorization: Bearer <token>` wherever
 * x-user-hash is, except here: only the x-user-hash mints tokens, so a token cannot extend itself.
 */

const userTokenSchema = z
  .object({
    token: z.string().openapi({ description: 'The JWT', example: 'eyJhbGciOiJFUzI1NiIsImtpZCI6Im9ia18...' }),
    tokenType: z.literal('Bearer').openapi({ description: 'Send as `Authorization: Bearer <token>`' }),
    expiresIn: z.number().int().openapi({ description: 'Seconds until it expires', example: 900 }),
    expiresAt: z.string().openapi({ example: '2026-11-23T09:15:00.000Z' }),
    kid: z.string().openapi({ description: 'Id of the signing key (also in the JWT header)' }),
  })
  .openapi('UserToken');

export const usertokenOperation = defineOperation({
  versions: [6, 7, 8],
  route: () =>
    createRoute({
      method: 'post',
      path: '/usertoken',
      operationId: 'userToken',
      tags: ['Users'],
      summary: 'Create a user token',
      description:
        'A JWT for the calling customer, valid for OPENBANKING_USER_TOKEN_TTL (default 15 minutes). Requires ' +
        '`x-user-hash` (a bearer token cannot mint another). Verify it with the JWKS at `/api/6/.well-known/jwks.json`.',
      security: security(['userHash']),
      responses: {
        200: { description: 'The token', content: { 'application/json': { schema: userTokenSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const user = await requireUserHash(c);
    return c.json(await openbanking.issueUserToken(c.get('deps'), { user }), 200);
  },
});
