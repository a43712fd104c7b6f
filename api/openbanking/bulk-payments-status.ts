import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { bulkRecordSchema } from './bulk-operation.ts';
import { AGENT_SECURITY, requireAgent } from './identity.ts';

/**
 * `GET /api/8/bulk-payments/status/{hookHash}`: the bulks started with a hook of the agent, newest
 * first, each with its overall status and entry counts. A hook of another agent is 404.
 */

const MAX_BULKS = 50;

const answerSchema = z
  .object({
    hookHash: z.string(),
    total: z.number().int().openapi({ description: 'Bulks started with this hook' }),
    bulks: z.array(bulkRecordSchema).openapi({ description: `The newest ${MAX_BULKS}, newest first` }),
  })
  .openapi('BulkPaymentStatus');

export const bulkPaymentsStatusOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'get',
      path: '/bulk-payments/status/{hookHash}',
      operationId: 'bulkPaymentStatus',
      tags: ['Bulk payments'],
      summary: 'Status of the bulk payments of a hook',
      description:
        'A hook hash may be passed to several bulks: this answers every bulk started with it (the newest ' +
        `${MAX_BULKS}), newest first, with the overall status and how many entries are confirmed, failed and ` +
        'waiting. The entries themselves: POST bulk-payments/search. Unknown hook, or another agent’s: 404.',
      security: AGENT_SECURITY,
      request: {
        params: z.object({
          hookHash: z
            .string()
            .min(1)
            .max(100)
            .openapi({ param: { name: 'hookHash', in: 'path' }, example: 'hook_Xc2…' }),
        }),
      },
      responses: {
        200: {
          description: 'The bulks of the hook',
          content: { 'application/json': { schema: answerSchema } },
        },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { agentId } = await requireAgent(c);
    return c.json(
      await openbanking.bulksOfHook(c.get('deps'), {
        agentId,
        hookHash: c.req.valid('param').hookHash,
        limit: MAX_BULKS,
      }),
      200,
    );
  },
});
