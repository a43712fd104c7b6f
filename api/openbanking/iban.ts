import { createRoute, z } from '@hono/zod-openapi';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { obAccounts, obBalances, obTransactions } from '../../db/schema/openbanking.ts';
import {
  consentTerminationWorkflowId,
  openBankingSearchAttributes,
} from '../../domain/openbanking/processes.ts';
import type { consentTermination } from '../../workflows/openbanking/index.ts';
import { errorResponses } from '../shared/errors.ts';
import { defineOperation } from '../shared/operation.ts';
import { ibanIdParam, requireUserAccount } from './account-records.ts';
import { USER_SECURITY } from './identity.ts';

/**
 * `DELETE /api/{6,7,8}/iban/{ibanId}`: removes the account from the user's list, with its balances and
 * transactions. When no other account of the user still uses its consent, the bank consent is ended in
 * the background (`ob-consent-end-<consentId>`: DELETE at the bank, consent TERMINATED).
 */

const deletedSchema = z
  .object({
    ibanId: z.string(),
    status: z.literal('deleted'),
    consentId: z.string(),
    consentTermination: z.enum(['requested', 'kept']).openapi({
      description:
        '`requested`: no other account used the consent, so it is being ended at the bank; `kept` otherwise',
    }),
  })
  .openapi('IbanDeleted');

export const ibanOperation = defineOperation({
  versions: [6, 7, 8],
  route: () =>
    createRoute({
      method: 'delete',
      path: '/iban/{ibanId}',
      operationId: 'deleteIban',
      tags: ['Account information'],
      summary: 'Deletes the user’s IBAN account',
      description:
        'Removes the account and its data from the gateway. Adding it again takes a new consent. Malformed ibanId 400; ' +
        'unknown, already deleted or another user’s account 404.',
      security: USER_SECURITY,
      request: { params: z.object({ ibanId: ibanIdParam }) },
      responses: {
        200: { description: 'Deleted', content: { 'application/json': { schema: deletedSchema } } },
        ...errorResponses,
      },
    }),
  handler: () => async (c) => {
    const { user, account } = await requireUserAccount(c, c.req.valid('param').ibanId);
    const { db, temporal, config } = c.get('deps');
    const stillUsed = await db.transaction(async (tx) => {
      await tx.update(obAccounts).set({ deletedAt: new Date() }).where(eq(obAccounts.id, account.id));
      await tx.delete(obBalances).where(eq(obBalances.accountId, account.id));
      await tx.delete(obTransactions).where(eq(obTransactions.accountId, account.id));
      const [used] = await tx
        .select({ count: sql<number>`count(*)::int` })
        .from(obAccounts)
        .where(and(eq(obAccounts.consentId, account.consentId), isNull(obAccounts.deletedAt)));
      return (used?.count ?? 0) > 0;
    });
    if (!stillUsed) {
      await temporal.workflow.start<typeof consentTermination>('consentTermination', {
        workflowId: consentTerminationWorkflowId(account.consentId),
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        args: [{ consentId: account.consentId }],
        workflowIdConflictPolicy: 'USE_EXISTING',
        typedSearchAttributes: openBankingSearchAttributes({ ...user, bankHash: account.bankHash }),
        staticSummary: `End consent ${account.consentId}: its last account was deleted`,
      });
    }
    return c.json(
      {
        ibanId: account.id,
        status: 'deleted' as const,
        consentId: account.consentId,
        consentTermination: stillUsed ? ('kept' as const) : ('requested' as const),
      },
      200,
    );
  },
});
