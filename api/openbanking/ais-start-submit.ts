import { createRoute } from '@hono/zod-openapi';
import { Refusal } from '../../application/shared/refusal.ts';
import { CONSENT_SCOPES } from '../../domain/openbanking/consents.ts';
import { html } from '../shared/html.ts';
import { defineOperation } from '../shared/operation.ts';
import { aisLinkPath, claimsOf, htmlContent, invalidLink, page } from './ais-link.ts';
import { startConsentFlow } from './consent.ts';
import { NO_SECURITY } from './identity.ts';

/**
 * `POST /openbanking/ais/start`: the AIS link page's button (form fields `token` and `bankHash`) starts the
 * consent as POST consent does, with the link's hook, and sends the browser to the bank's SCA page.
 */

export const aisStartSubmitOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: aisLinkPath,
      operationId: 'aisStart',
      tags: ['Account information'],
      summary: 'AIS link page: start the consent',
      description:
        'Form fields `token` (the link’s) and `bankHash`. Starts the consent (as POST consent, with the link’s hook) ' +
        'and answers 303 to the bank’s SCA page.',
      security: NO_SECURITY,
      responses: {
        303: { description: 'To the bank’s SCA page' },
        401: { description: 'Invalid or expired link', content: htmlContent },
      },
    }),
  handler: () => async (c) => {
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const claims = await claimsOf(c, typeof form.token === 'string' ? form.token : undefined);
    if (!claims) return invalidLink(c);
    const bankHash = claims.bankHash ?? (typeof form.bankHash === 'string' ? form.bankHash : '');
    if (!/^[0-9a-f]{24}$/.test(bankHash))
      return page(c, 400, 'Choose a bank', html`<p>No bank was chosen.</p>`);
    try {
      const started = await startConsentFlow(
        c,
        claims.user,
        {
          bankHash,
          ...(claims.hookHash ? { hookHash: claims.hookHash } : {}),
          app: 'ais-link',
          kind: 'ais',
          access: [...CONSENT_SCOPES],
          ibans: [],
        },
        c.req.header('user-agent'),
      );
      // The AIS link page takes no bank user id, so its consents are redirect ones (decoupled banks: 400).
      if (!started.scaRedirectUrl)
        throw Refusal.field('bankHash', 'this bank approves in its app; use POST consent');
      return c.redirect(started.scaRedirectUrl, 303);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      const status =
        ([400, 404, 409, 502, 503] as const).find((candidate) => candidate === error.status) ?? 400;
      return page(c, status, 'Could not start', html`<p>${error.message}</p>`);
    }
  },
});
