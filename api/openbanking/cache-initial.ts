import { createRoute, z } from '@hono/zod-openapi';
import { and, eq } from 'drizzle-orm';
import type { UseCaseDeps } from '../../application/shared/deps.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import { obAccounts, obUsers } from '../../db/schema/openbanking.ts';
import { IBAN_ID_PATTERN } from '../../domain/openbanking/consents.ts';
import { accountRefreshWorkflowId, openBankingSearchAttributes } from '../../domain/openbanking/processes.ts';
import type { accountRefresh } from '../../workflows/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { agentAccounts } from './account-records.ts';
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
    const outcome = await requestAccountRefresh(c.get('deps'), { agentId, bankAccountId });
    if (outcome === 'not_found') throw Refusal.notFound('Bank account');
    return c.json({ bankAccountId, status: 'refresh_requested' as const }, 202);
  },
});

/**
 * Cache initialisation (`POST /api/8/cache/initial/{bankAccountId}`): asks for a fresh read of one bank
 * account (balances, transactions) from its bank, done in the background by the `ob-refresh-<ibanId>`
 * workflow. `bankAccountId` is the account's ibanId; an account none of the agent's live users holds is
 * 'not_found'. A refresh already running for the account is the one that answers the request.
 */
async function requestAccountRefresh(
  deps: UseCaseDeps,
  request: { agentId: string; bankAccountId: string },
): Promise<'accepted' | 'not_found'> {
  if (!IBAN_ID_PATTERN.test(request.bankAccountId)) return 'not_found';
  const [account] = await deps.db
    .select({ id: obAccounts.id, userId: obAccounts.userId, bankHash: obAccounts.bankHash })
    .from(obAccounts)
    .innerJoin(obUsers, eq(obUsers.id, obAccounts.userId))
    .where(and(eq(obAccounts.id, request.bankAccountId), agentAccounts(request.agentId)))
    .limit(1);
  if (!account) return 'not_found';
  await deps.temporal.workflow.start<typeof accountRefresh>('accountRefresh', {
    workflowId: accountRefreshWorkflowId(account.id),
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    args: [{ ibanId: account.id }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: openBankingSearchAttributes({ agentId: request.agentId, ...account }),
    staticSummary: `Refresh account ${account.id} from its bank`,
  });
  return 'accepted';
}
