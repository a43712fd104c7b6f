import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { lendingPath } from '../paths.ts';

/**
 * `POST /User/RequestPasswordReset?login=&confirmationUrl=`: e-mails the user a one-time reset link,
 * `confirmationUrl` with `code=<code>` added (the code alone when no URL is given). The answer is the
 * same whether or not the login exists. Where the tenant has site domains, the link must point at one
 * of them (or a subdomain), so that our e-mail never carries someone else's link.
 */
export const userRequestPasswordResetOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: lendingPath('/User/RequestPasswordReset'),
      tags: ['User'],
      summary: 'E-mail a password reset link',
      description:
        'Generates a one-time code (LENDING_PASSWORD_RESET_TTL, 1 hour by default) and e-mails the link ' +
        '`confirmationUrl?code=<code>` to the customer’s e-mail (or the login when it is an e-mail address). ' +
        'Always 202, whether or not the login exists. `confirmationUrl` must be on one of the tenant’s site ' +
        'domains when it has any.',
      security: lendingSecurity.apiKey,
      request: {
        query: z.object({
          login: z.string().trim().min(1).max(200).openapi({ example: 'jane.doe@example.com' }),
          confirmationUrl: z
            .url({ protocol: /^https?$/ })
            .max(2000)
            .optional()
            .openapi({ example: 'https://loans.example.com/reset-password' }),
        }),
      },
      responses: {
        202: {
          description: 'If the login exists, the link is on its way',
          content: { 'application/json': { schema: z.object({ accepted: z.literal(true) }) } },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) => {
    await lending.requestPasswordReset(c.get('deps'), {
      tenant: c.get('lendingTenant'),
      ...c.req.valid('query'),
    });
    return c.json({ accepted: true as const }, 202);
  },
});
