import { createRoute, z } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { Refusal } from '../../../application/shared/refusal.ts';
import { IDN_TEXT } from '../../../domain/collect/payloads.ts';
import { htmlAnswer } from '../../shared/openapi.ts';
import { defineOperation } from '../../shared/operation.ts';
import { deskPage, deskPageHandler, loginPage, pageOperator } from './page-html.ts';

/** GET /desk: the cash-desk page (log-in form, or the desk with the IDN looked up). */
export const deskPageOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/desk',
      tags: ['Cash desk'],
      summary: 'The cash-desk page',
      description:
        'For a person at the counter: the log-in form, or (logged in, session cookie) the look-up form and, with ' +
        '`idn`, what is due on it with a button to take the payment or a form to pay out a payout.',
      request: {
        query: z.object({ idn: z.string().optional().openapi({ description: 'The IDN to look up' }) }),
      },
      responses: {
        200: htmlAnswer('The page'),
        400: htmlAnswer('The IDN is not 10 digits'),
        401: htmlAnswer('Not logged in: the log-in form'),
        404: htmlAnswer('No such IDN'),
      },
    }),
  handler: () =>
    deskPageHandler(async (c) => {
      const session = await pageOperator(c);
      if (!session) return loginPage(c, c.req.query('idn') ? 401 : 200);
      const idn = c.req.query('idn')?.trim();
      if (!idn) return deskPage(c, session);
      if (!IDN_TEXT.test(idn))
        return deskPage(c, session, { error: Refusal.field('idn', 'idn: must be 10 digits') });
      try {
        return deskPage(c, session, {
          view: await collect.lookUpIdn(c.get('deps'), { operator: session.operator, idn }),
        });
      } catch (error) {
        if (error instanceof Refusal && error.status < 500) return deskPage(c, session, { error });
        throw error;
      }
    }),
});
