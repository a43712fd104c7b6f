import { createRoute, z } from '@hono/zod-openapi';
import { lending } from '../../../application/lending/index.ts';
import { defineLendingOperation, lendingErrorResponses, lendingSecurity } from '../auth.ts';
import { lendingPath } from '../paths.ts';

/**
 * `GET /Customer/States`: the tenant's states of operation. A tenant without state management has no
 * such list: 404 `state_management_disabled` (decision 0037).
 */
export const customerStatesOperation = defineLendingOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: lendingPath('/Customer/States'),
      tags: ['Customer'],
      summary: 'States of operation',
      description: 'Only when the tenant has state management; otherwise 404 `state_management_disabled`.',
      security: lendingSecurity.apiKey,
      responses: {
        200: {
          description: 'The states',
          content: {
            'application/json': {
              schema: z.object({ states: z.array(z.string().openapi({ example: 'CA' })) }).openapi('States'),
            },
          },
        },
        ...lendingErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(await lending.statesOf(c.get('deps'), { tenant: c.get('lendingTenant') }), 200),
});
