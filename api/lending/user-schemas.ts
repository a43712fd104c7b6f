import { z } from '@hono/zod-openapi';
import type { IssuedUserToken } from '../../credentials/lending/users.ts';
import { LOGIN_PATTERN, MAX_PASSWORD_LENGTH, passwordSchema } from '../../domain/lending/customers.ts';

/** Request and answer schemas shared by the user operations (Customer/Register, User/*). */

export const loginParameter = z
  .string()
  .trim()
  .regex(LOGIN_PATTERN, '3-100 letters, digits or . _ @ + - (an e-mail address is a good login)')
  .openapi({
    description: 'The user’s login (compared case-insensitively)',
    example: 'jane.doe@example.com',
  });

/** A new password: the rules of decision 0037 (10-128 characters, not the login). */
export const newPasswordParameter = passwordSchema.meta({
  description: 'At least 10 and at most 128 characters, not the login; never logged',
  example: 'correct horse battery',
});

/** A password being checked: any length the rules ever allowed. */
export const presentedPasswordParameter = z
  .string()
  .min(1)
  .max(MAX_PASSWORD_LENGTH)
  .openapi({ description: 'The password; never logged', example: 'correct horse battery' });

export const userTokenSchema = z
  .object({
    userAuthToken: z.string().openapi({
      description: 'Send as the `lender_UserAuthToken` header; shown once, only its digest is kept',
      example: 'lut_Jm3q8yX2...',
    }),
    expiresAt: z.string().openapi({ example: '2026-11-25T08:00:00.000Z' }),
    userId: z.string(),
    role: z.enum(['customer', 'investor']),
    customerId: z.string().nullable(),
  })
  .openapi('UserAuthToken');

export const userTokenAnswer = (
  issued: IssuedUserToken,
  user: { id: string; role: 'customer' | 'investor'; customerId?: string | undefined },
): z.infer<typeof userTokenSchema> => ({
  userAuthToken: issued.token,
  expiresAt: issued.expiresAt.toISOString(),
  userId: user.id,
  role: user.role,
  customerId: user.customerId ?? null,
});
