import { createRoute, z } from '@hono/zod-openapi';
import { errorBodySchema } from '../shared/errors.ts';
import { lendingErrorResponses, lendingSecurity } from './auth.ts';
import { lendingPath } from './paths.ts';
import { loginParameter, newPasswordParameter, userTokenSchema } from './user-schemas.ts';

/**
 * The route of a self-registration (`POST /Customer/Register`, `POST /Investor/Register`): `login` and
 * `password` as query parameters, as the spec has them (the platform never logs query strings), optional
 * personal details as a JSON body, the user token in the answer, 409 `login_taken`.
 */
export function registerRoute<Details extends z.ZodType>(role: {
  path: string;
  tag: string;
  summary: string;
  description: string;
  details: Details;
}) {
  return createRoute({
    method: 'post',
    path: lendingPath(role.path),
    tags: [role.tag],
    summary: role.summary,
    description: role.description,
    security: lendingSecurity.apiKey,
    request: {
      query: z.object({ login: loginParameter, password: newPasswordParameter }),
      body: { required: false, content: { 'application/json': { schema: role.details } } },
    },
    responses: {
      201: { description: 'Registered', content: { 'application/json': { schema: userTokenSchema } } },
      ...lendingErrorResponses,
      409: { description: '`login_taken`', content: { 'application/json': { schema: errorBodySchema } } },
    },
  });
}
