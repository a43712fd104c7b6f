import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { lendingPath } from '../paths.ts';
import { presentedPasswordParameter, userTokenAnswer, userTokenSchema } from '../user-schemas.ts';

/**
 * `POST /User/Login?login=&password=`: a new user token. An unknown login, a wrong password and an
 * account without a password answer the same 401 `invalid_credentials`, after the same scrypt work.
 */
export const userLoginOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/User/Login'),
      tags: ['User'],
      summary: 'Log in',
      description:
        'Answers a `lender_UserAuthToken` for the login and password (query parameters, never logged). ' +
        '401 `invalid_credentials` when they do not match (whether or not the login exists). Failed logins ' +
        'are limited per login (known or not): after LENDING_LOGIN_FREE_FAILURES (3) each further failure ' +
        'blocks it for an exponentially growing time, answered 429 `login_throttled` with `Retry-After`; ' +
        'after LENDING_LOGIN_LOCK_AFTER (10) it is locked, 423 `login_locked`, until the password is reset ' +
        'or an operator unlocks it.',
      security: lendingSecurity.apiKey,
      request: {
        query: z.object({
          login: z.string().trim().min(1).max(200).openapi({ example: 'jane.doe@example.com' }),
          password: presentedPasswordParameter,
        }),
      },
      responses: {
        200: { description: 'Logged in', content: { 'application/json': { schema: userTokenSchema } } },
        ...lendingErrorResponses,
        423: {
          description: '`login_locked`: too many failed logins; reset the password',
          content: lendingErrorResponses[400].content,
        },
        429: {
          description: '`login_throttled`: too many failed logins; retry after `Retry-After` seconds',
          headers: z.object({ 'retry-after': z.string().openapi({ description: 'Seconds to wait' }) }),
          content: lendingErrorResponses[400].content,
        },
      },
    }),
  handler: () => async (c) => {
    const loggedIn = await lending.logIn(c.get('deps'), {
      tenantId: c.get('lendingTenant').id,
      ...c.req.valid('query'),
    });
    return c.json(userTokenAnswer(loggedIn, loggedIn.user), 200);
  },
});
