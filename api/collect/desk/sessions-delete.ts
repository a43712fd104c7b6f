import { createRoute } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { defineOperation } from '../../shared/operation.ts';
import { DESK_SECURITY, deskErrorResponses, requireDeskOperator } from './auth.ts';

/** DELETE /desk/api/sessions/current: logout; the token stops working at once. */
export const deskSessionsDeleteOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'delete',
      path: '/desk/api/sessions/current',
      tags: ['Cash desk'],
      summary: 'Log out (revoke the bearer token)',
      security: DESK_SECURITY,
      middleware: [requireDeskOperator] as const,
      responses: { 204: { description: 'Logged out' }, 401: deskErrorResponses[401] },
    }),
  handler: () => async (c) => {
    const token = /^Bearer (\S+)$/.exec(c.req.header('authorization') ?? '')?.[1];
    if (token) await collect.logOut(c.get('deps'), { token });
    return c.body(null, 204);
  },
});
