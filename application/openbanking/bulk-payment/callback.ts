import { WorkflowNotFoundError } from '@temporalio/client';
import { and, eq, isNull } from 'drizzle-orm';
import { digestOf } from '../../../credentials/openbanking/identity.ts';
import { obHooks } from '../../../db/schema/openbanking.ts';
import { obBulkPayments } from '../../../db/schema/openbanking-bulk-payments.ts';
import { APP_PATTERN, STATE_PATTERN } from '../../../domain/openbanking/consents.ts';
import { bulkCallbackSignal, bulkPaymentWorkflowId } from '../../../domain/openbanking/processes.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';

/**
 * The bank's callback of a bulk's SCA (`/redirect/{app}/state/{state}`, when no consent or payment has
 * that state): signals the bulk's workflow, and answers the hook's redirectUrl (or null). Undefined when
 * no bulk has that state.
 */
export async function bulkBankCallback(
  deps: UseCaseDeps,
  callback: { app: string; state: string; nok: boolean },
): Promise<{ redirectUrl: string | null } | undefined> {
  const { app, state } = callback;
  if (!STATE_PATTERN.test(state) || !APP_PATTERN.test(app)) return undefined;
  const { db, temporal, logger } = deps;
  const [row] = await db
    .select({ bulk: obBulkPayments, redirectUrl: obHooks.redirectUrl })
    .from(obBulkPayments)
    .leftJoin(obHooks, eq(obHooks.hookHash, obBulkPayments.hookHash))
    .where(and(eq(obBulkPayments.stateDigest, digestOf(state)), eq(obBulkPayments.app, app)))
    .limit(1);
  if (!row) return undefined;
  await db
    .update(obBulkPayments)
    .set({ callbackAt: new Date() })
    .where(and(eq(obBulkPayments.id, row.bulk.id), isNull(obBulkPayments.callbackAt)));
  try {
    await temporal.workflow
      .getHandle(bulkPaymentWorkflowId(row.bulk.id))
      .signal(bulkCallbackSignal, { nok: callback.nok });
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    logger.info({ bulkId: row.bulk.id }, 'bank callback after the bulk ended');
  }
  return { redirectUrl: row.redirectUrl };
}
