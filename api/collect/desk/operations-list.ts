import { createRoute, z } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { defineOperation } from '../../shared/operation.ts';
import { DESK_SECURITY, deskErrorResponses, deskOperatorOf, requireDeskOperator } from './auth.ts';
import { operationRecordSchema } from './schemas.ts';

/** GET /desk/api/operations: the operator's own latest operations (never another operator's). */
export const deskOperationsListOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/desk/api/operations',
      tags: ['Cash desk'],
      summary: "The operator's operations",
      security: DESK_SECURITY,
      middleware: [requireDeskOperator] as const,
      request: {
        query: z.object({
          limit: z.coerce.number().int().min(1).max(500).default(50).openapi({ example: 50 }),
        }),
      },
      responses: {
        200: {
          description: 'Newest first',
          content: {
            'application/json': { schema: z.object({ operations: z.array(operationRecordSchema) }) },
          },
        },
        400: deskErrorResponses[400],
        401: deskErrorResponses[401],
      },
    }),
  handler: () => async (c) =>
    c.json(
      {
        operations: await collect.operationsOf(c.get('deps'), {
          operator: deskOperatorOf(c),
          limit: c.req.valid('query').limit,
        }),
      },
      200,
    ),
});
