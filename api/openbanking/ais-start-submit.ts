import { createRoute } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import { html } from '../shared/html.ts';
import { defineOperation } from '../shared/operation.ts';
import { aisLinkPath, htmlContent, invalidLink, page } from './ais-link.ts';
import { flowOriginOf } from './flow-origin.ts';
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
    try {
      const started = await openbanking.startAisLinkConsent(c.get('deps'), {
        token: typeof form.token === 'string' ? form.token : undefined,
        bankHash: typeof form.bankHash === 'string' ? form.bankHash : undefined,
        origin: flowOriginOf(c, c.req.header('user-agent')),
      });
      if (started.outcome === 'invalid_link') return invalidLink(c);
      if (started.outcome === 'no_bank')
        return page(c, 400, 'Choose a bank', html`<p>No bank was chosen.</p>`);
      return c.redirect(started.scaRedirectUrl, 303);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      const status =
        ([400, 404, 409, 502, 503] as const).find((candidate) => candidate === error.status) ?? 400;
      return page(c, status, 'Could not start', html`<p>${error.message}</p>`);
    }
  },
});
