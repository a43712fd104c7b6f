import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import {
  defineLendingOperation,
  lendingErrorResponses,
  lendingSecurity,
  presentedUserTokenDigest,
  requireUser,
} from '../auth.ts';
import { lendingPath } from '../paths.ts';
import { newPasswordParameter, presentedPasswordParameter } from '../user-schemas.ts';

/**
 * `POST /User/ChangePassword?currentPassword=&newPassword=`: the user's own password. The user's other
 * tokens are revoked; the one that asked stays valid.
 */
export const userChangePasswordOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/User/ChangePassword'),
      tags: ['User'],
      summary: 'Change the current user’s password',
      description:
        'Checks `currentPassword` and sets `newPassword` (10-128 characters, not the login). Every other token of ' +
        'the user is revoked. 400 `wrong_password` (field currentPassword) when the current password does not match.',
      security: lendingSecurity.user,
      request: {
        query: z.object({ currentPassword: presentedPasswordParameter, newPassword: newPasswordParameter }),
      },
      responses: {
        200: {
          description: 'Changed',
          content: { 'application/json': { schema: z.object({ passwordChanged: z.literal(true) }) } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    const user = requireUser(c);
    const scope = { tenantId: c.get('lendingTenant').id, userId: user.id, login: user.login };
    const tokenDigest = presentedUserTokenDigest(c);
    await lending.changeUserPassword(c.get('deps'), {
      user: { ...scope, tokenDigest },
      ...c.req.valid('query'),
    });
    return c.json({ passwordChanged: true as const }, 200);
  },
});
