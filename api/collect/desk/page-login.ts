import { createRoute } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { htmlAnswer } from '../../shared/openapi.ts';
import { defineOperation } from '../../shared/operation.ts';
import {
  deskBase,
  deskPageHandler,
  formFields,
  loginPage,
  requireSameOrigin,
  setSessionCookie,
} from './page-html.ts';

/** POST /desk/login: the page's log-in form; sets the session cookie. */
export const deskPageLoginOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/desk/login',
      tags: ['Cash desk'],
      summary: 'Cash-desk page: log in',
      description:
        'Form fields `login`, `password`. 303 to the desk with the session cookie (HttpOnly, SameSite=Strict, ' +
        'Secure over https), or 401 with the form again.',
      responses: {
        303: { description: 'Logged in' },
        401: htmlAnswer('Wrong login or password'),
        403: htmlAnswer('Posted from another origin'),
      },
    }),
  handler: () =>
    deskPageHandler(async (c) => {
      requireSameOrigin(c);
      const form = await formFields(c);
      const session =
        form.login && form.password
          ? await collect.logIn(c.get('deps'), { login: form.login, password: form.password })
          : undefined;
      if (!session) return loginPage(c, 401, 'Wrong login or password.');
      setSessionCookie(c, session.token, session.expiresAt);
      return c.redirect(deskBase(c), 303);
    }),
});
