import { createRoute } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { defineOperation } from '../../shared/operation.ts';
import {
  checkCsrf,
  clearSessionCookie,
  deskBase,
  deskPageHandler,
  formFields,
  pageOperator,
  requireSameOrigin,
} from './page-html.ts';

/** POST /desk/logout: ends the page's session. */
export const deskPageLogoutOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/desk/logout',
      tags: ['Cash desk'],
      summary: 'Cash-desk page: log out',
      responses: { 303: { description: 'Logged out, back to the log-in form' } },
    }),
  handler: () =>
    deskPageHandler(async (c) => {
      requireSameOrigin(c);
      const session = await pageOperator(c);
      if (session) {
        checkCsrf(session.csrf, (await formFields(c)).csrf ?? '');
        await collect.logOut(c.get('deps'), { token: session.token });
      }
      clearSessionCookie(c);
      return c.redirect(deskBase(c), 303);
    }),
});
