import { createRoute, z } from '@hono/zod-openapi';
import { readCustomer } from '../../application/lending/customers.ts';
import { sendUserMail } from '../../application/lending/mail-outbox.ts';
import { requireTenantSiteUrl } from '../../application/lending/tenant-site.ts';
import { findUserByLogin, issuePasswordResetCode } from '../../credentials/lending/users.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from './auth.ts';
import { lendingPath } from './paths.ts';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

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
    const deps = c.get('deps');
    const { db, config } = deps;
    const tenant = c.get('lendingTenant');
    const { login, confirmationUrl } = c.req.valid('query');
    if (confirmationUrl) await requireTenantSiteUrl(db, tenant.id, 'confirmationUrl', confirmationUrl);
    const user = await findUserByLogin(db, tenant.id, login);
    const customer = user?.customerId ? await readCustomer(db, tenant.id, user.customerId) : undefined;
    const recipient = customer?.details.email ?? (user && EMAIL.test(user.login) ? user.login : undefined);
    if (user && recipient) {
      const { code, expiresAt } = await issuePasswordResetCode(
        db,
        { tenantId: tenant.id, userId: user.id },
        config.LENDING_PASSWORD_RESET_TTL,
      );
      let link = code;
      if (confirmationUrl) {
        const url = new URL(confirmationUrl);
        url.searchParams.set('code', code);
        link = url.toString();
      }
      await sendUserMail(deps, {
        tenantId: tenant.id,
        userId: user.id,
        kind: 'password_reset',
        recipient,
        subject: `${tenant.name}: reset your password`,
        body:
          `Hello,\n\nsomeone asked to reset the password of your ${tenant.name} account (${user.login}).\n` +
          `${confirmationUrl ? 'Open this link' : 'Use this code'} to choose a new password (valid until ${expiresAt.toISOString()}, once):\n` +
          `${link}\n\nIf it was not you, ignore this message: your password stays as it is.\n`,
      });
    }
    return c.json({ accepted: true as const }, 202);
  },
});
