import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { lendingPath } from '../paths.ts';
import { newPasswordParameter } from '../user-schemas.ts';

/**
 * `POST /User/ResetPassword?newPassword=&code=`: sets the password with the code of a reset link. The
 * code works once and within its lifetime; the user's tokens are revoked.
 */
export const userResetPasswordOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/User/ResetPassword'),
      tags: ['User'],
      summary: 'Set a new password with a reset code',
      description:
        'Sets `newPassword` (10-128 characters) for the user the `code` was e-mailed to, and revokes their ' +
        'tokens. 400 `invalid_reset_code` (field code) for an unknown, used or expired code.',
      security: lendingSecurity.apiKey,
      request: {
        query: z.object({
          newPassword: newPasswordParameter,
          code: z.string().min(1).max(200).openapi({ description: 'The code of the reset link' }),
        }),
      },
      responses: {
        200: {
          description: 'Password set',
          content: { 'application/json': { schema: z.object({ passwordChanged: z.literal(true) }) } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    await lending.resetUserPassword(c.get('deps'), {
      tenantId: c.get('lendingTenant').id,
      ...c.req.valid('query'),
    });
    return c.json({ passwordChanged: true as const }, 200);
  },
});
