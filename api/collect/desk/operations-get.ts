import { createRoute, z } from '@hono/zod-openapi';
import { collect } from '../../../application/collect/index.ts';
import { defineOperation } from '../../shared/operation.ts';
import { DESK_SECURITY, deskErrorResponses, deskOperatorOf, requireDeskOperator } from './auth.ts';
import { operationRecordSchema } from './schemas.ts';

/** GET /desk/api/operations/{receipt}: one of the operator's own operations. */
export const deskOperationsGetOperation = defineOperation({
  route: () =>
    createRoute({
      method: 'get',
      path: '/desk/api/operations/{receipt}',
      tags: ['Cash desk'],
      summary: 'An operation by its receipt',
      description: "Another operator's receipt is 404, as an unknown one.",
      security: DESK_SECURITY,
      middleware: [requireDeskOperator] as const,
      request: {
        params: z.object({
          receipt: z.string().max(40).openapi({ example: '000123-0000004567' }),
        }),
      },
      responses: {
        200: {
          description: 'The operation',
          content: { 'application/json': { schema: operationRecordSchema } },
        },
        ...deskErrorResponses,
      },
    }),
  handler: () => async (c) =>
    c.json(
      await collect.operationOf(c.get('deps'), {
        operator: deskOperatorOf(c),
        receipt: c.req.valid('param').receipt,
      }),
      200,
    ),
});
