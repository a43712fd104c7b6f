import { createRoute, z } from '@hono/zod-openapi';
import { openbanking } from '../../application/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { AGENT_SECURITY, requireAgent } from './identity.ts';

/**
 * `POST /api/8/cache/initial/{bankAccountId}`: forces a refresh of the account's read model from the bank.
 * Answers 202 at once; the refresh runs in the background (plain reads never call the bank).
 */
export const cacheInitialOperation = defineOperation({
  versions: [8],
  route: () =>
    createRoute({
      method: 'post',
      path: '/cache/initial/{bankAccountId}',
      operationId: 'cacheInitial',
      tags: ['Agent users'],
      summary: 'Cache initialisation for a bank account',
      description:
        'Requests a fresh read of the account (balances, transactions) from its bank. 202 when accepted; an account ' +
        'none of the agent’s users holds is 404.',
      security: AGENT_SECURITY,
      request: {
        params: z.object({
          bankAccountId: z
            .string()
            .min(1)
            .max(100)
            .openapi({ param: { name: 'bankAccountId', in: 'path' }, description: 'The account’s ibanId' }),
        }),
      },
      responses: {
        202: {
          description: 'Refresh requested',
          content: {
            'application/json': {
              schema: z
                .object({ bankAccountId: z.string(), status: z.literal('refresh_requested') })
                .openapi('CacheInitialResult'),
            },
          },
        },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { agentId } = await requireAgent(c);
    const { bankAccountId } = c.req.valid('param');
    await openbanking.requestAccountRefresh(c.get('deps'), { agentId, bankAccountId });
    return c.json({ bankAccountId, status: 'refresh_requested' as const }, 202);
  },
});
