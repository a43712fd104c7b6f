import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { fulfilledQuery, listSchema } from './consents-request-schemas.ts';
import { ADMIN_SECURITY, requireAdmin } from './identity.ts';

/** `GET /api/cgate/consents-request/{userHash}`: an operator lists a user's consents requests. */

export const cgateConsentsRequestListOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/api/cgate/consents-request/{userHash}',
      operationId: 'cgateConsentsRequestsOfUser',
      tags: ['Consents requests'],
      summary: 'Consents requests of a user (admin)',
      description: 'Newest first (at most 200). An unknown or deleted user hash is 404.',
      security: ADMIN_SECURITY,
      request: {
        params: z.object({
          userHash: z
            .string()
            .min(1)
            .max(200)
            .openapi({ param: { name: 'userHash', in: 'path' } }),
        }),
        query: fulfilledQuery,
      },
      responses: {
        200: { description: 'The requests', content: { 'application/json': { schema: listSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    await requireAdmin(c);
    const { userHash } = c.req.valid('param');
    return c.json(
      await openbanking.listConsentsRequests(c.get('deps'), {
        owner: { userHash },
        fulfilled: c.req.valid('query').fulfilled,
      }),
      200,
    );
  },
});
