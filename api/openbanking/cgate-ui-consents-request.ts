import { createRoute } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { fulfilledQuery, listSchema } from './consents-request-schemas.ts';
import { requireUser, USER_SECURITY } from './identity.ts';

/** `GET /api/cgate/ui/consents-request`: the calling user's own consents requests. */

export const cgateUiConsentsRequestOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/api/cgate/ui/consents-request',
      operationId: 'cgateConsentsRequestsForUi',
      tags: ['Consents requests'],
      summary: 'The calling user’s consents requests (user interface)',
      description: 'Newest first (at most 200); `fulfilled=false` for those still to act on.',
      security: USER_SECURITY,
      request: { query: fulfilledQuery },
      responses: {
        200: { description: 'The requests', content: { 'application/json': { schema: listSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { userId } = await requireUser(c);
    return c.json(
      await openbanking.listConsentsRequests(c.get('deps'), {
        owner: { userId },
        fulfilled: c.req.valid('query').fulfilled,
      }),
      200,
    );
  },
});
