import { createRoute, z } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { Refusal } from '../../../application/shared/refusal.ts';
import { jsonBody } from '../../shared/openapi.ts';
import { defineOperation } from '../../shared/operation.ts';
import { deskErrorResponses } from './auth.ts';

/** POST /desk/api/sessions: an operator logs in and gets the bearer token of the desk API. */
export const deskSessionsCreateOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/desk/api/sessions',
      tags: ['Cash desk'],
      summary: 'Log in a desk operator',
      description:
        'Checks the login and password the platform operator issued and answers a session token, sent as ' +
        '`Authorization: Bearer <token>` on every other desk API call until `expiresAt` (COLLECT_DESK_SESSION_TTL) ' +
        'or logout. 401 `unauthorized` for a wrong login or password (the same answer for both).',
      request: {
        body: jsonBody(
          z.object({
            login: z.string().min(1).max(64).openapi({ example: 'sofia-01' }),
            password: z.string().min(1).max(200),
          }),
        ),
      },
      responses: {
        201: {
          description: 'Logged in',
          content: {
            'application/json': {
              schema: z
                .object({
                  token: z.string().openapi({ description: 'Bearer token; only its hash is kept' }),
                  expiresAt: z.string(),
                  operator: z.object({
                    id: z.string(),
                    login: z.string(),
                    name: z.string(),
                    officeId: z.string(),
                    officeKind: z.enum(['office', 'atm']),
                  }),
                })
                .openapi('DeskSession'),
            },
          },
        },
        400: deskErrorResponses[400],
        401: deskErrorResponses[401],
      },
    }),
  handler: () => async (c) => {
    const session = await collect.logIn(c.get('deps'), c.req.valid('json'));
    if (!session) throw Refusal.unauthorized('Wrong login or password');
    return c.json(
      { token: session.token, expiresAt: session.expiresAt.toISOString(), operator: session.operator },
      201,
    );
  },
});
