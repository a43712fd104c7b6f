import { and, eq } from 'drizzle-orm';
import { obAccounts, obUsers } from '../../db/schema/openbanking.ts';
import {
  accountRefreshWorkflowId,
  IBAN_ID_PATTERN,
  openBankingSearchAttributes,
} from '../../domain/openbanking/consents.ts';
import { accountRefresh } from '../../workflows/openbanking/accounts.ts';
import type { ApiDeps } from '../shared/context.ts';
import { agentAccounts } from './account-records.ts';

/**
 * Cache initialisation (`POST /api/8/cache/initial/{bankAccountId}`): asks for a fresh read of one bank
 * account (balances, transactions) from its bank, done in the background by the `ob-refresh-<ibanId>`
 * workflow. `bankAccountId` is the account's ibanId; an account none of the agent's live users holds is
 * 'not_found'. A refresh already running for the account is the one that answers the request.
 */
export async function requestAccountRefresh(
  deps: ApiDeps,
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
  await deps.temporal.workflow.start(accountRefresh, {
    workflowId: accountRefreshWorkflowId(account.id),
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    args: [{ ibanId: account.id }],
    workflowIdConflictPolicy: 'USE_EXISTING',
    typedSearchAttributes: openBankingSearchAttributes({ agentId: request.agentId, ...account }),
    staticSummary: `Refresh account ${account.id} from its bank`,
  });
  return 'accepted';
}
