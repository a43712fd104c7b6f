import { createRoute, z } from '@hono/zod-openapi';
import { Refusal } from '../../application/shared/refusal.ts';
import { changePassword } from '../../credentials/lending/users.ts';
import { normalizeLogin } from '../../domain/lending/customers.ts';
import {
  defineLendingOperation,
  lendingErrorResponses,
  lendingSecurity,
  presentedUserTokenDigest,
  requireUser,
} from './auth.ts';
import { lendingPath } from './paths.ts';
import { newPasswordParameter, presentedPasswordParameter } from './user-schemas.ts';

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
    const { db } = c.get('deps');
    const user = requireUser(c);
    const passwords = c.req.valid('query');
    if (normalizeLogin(passwords.newPassword) === user.login) {
      throw Refusal.field('newPassword', 'must not be the login');
    }
    const changed = await changePassword(
      db,
      { tenantId: c.get('lendingTenant').id, userId: user.id, tokenDigest: presentedUserTokenDigest(c) },
      passwords,
    );
    if (!changed) {
      throw new Refusal(400, 'wrong_password', 'The current password is not valid', [
        { field: 'currentPassword', message: 'does not match' },
      ]);
    }
    return c.json({ passwordChanged: true as const }, 200);
  },
});
