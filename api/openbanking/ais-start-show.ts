import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { html } from '../shared/html.ts';
import { defineOperation } from '../shared/operation.ts';
import { AIS_LINK_PATH, aisLinkPath, htmlContent, invalidLink, page } from './ais-link.ts';
import { NO_SECURITY } from './identity.ts';

/** `GET /openbanking/ais/start?token=`: the AIS link page, showing the bank(s) to connect; creates nothing. */

export const aisStartShowOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: aisLinkPath,
      operationId: 'aisStartPage',
      tags: ['Account information'],
      summary: 'AIS link page: choose the bank',
      description: 'The page the AIS e-mail links to. Creates nothing; its button starts the consent.',
      security: NO_SECURITY,
      request: { query: z.object({ token: z.string().max(4000).optional() }) },
      responses: {
        200: { description: 'The page', content: htmlContent },
        401: { description: 'Invalid or expired link', content: htmlContent },
      },
    }),
  handler: () => async (c) => {
    const token = c.req.valid('query').token;
    const banks = await openbanking.aisLinkBanks(c.get('deps'), { token });
    if (!banks) return invalidLink(c);
    const buttons = banks.map(
      (bank) =>
        html`<form method="post" action="${AIS_LINK_PATH}"><input type="hidden" name="token" value="${token!}"><input type="hidden" name="bankHash" value="${bank.bankHash}"><button type="submit">Connect ${bank.name}</button></form>`,
    );
    return page(
      c,
      200,
      'Connect your bank account',
      html`<p>Choose your bank. You will log in at the bank and approve sharing your accounts, balances and transactions.</p>${buttons}`,
    );
  },
});
