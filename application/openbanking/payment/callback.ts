import { WorkflowNotFoundError } from '@temporalio/client';
import { and, eq } from 'drizzle-orm';
import { digestOf } from '../../../credentials/openbanking/identity.ts';
import { obHooks } from '../../../db/schema/openbanking.ts';
import { obPayments } from '../../../db/schema/openbanking-payments.ts';
import {
  paymentCallbackSignal,
  paymentCancellationCallbackSignal,
  paymentWorkflowId,
} from '../../../domain/openbanking/processes.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';

/**
 * The bank callback `/redirect/{app}/state/{state}` of a payment's redirect SCA (or, marked
 * `?sca=cancellation`, of its cancellation's SCA): the payment is found by
 * the digest of its state and its workflow signalled (the bank, not the browser, then says how the
 * payment stands). Undefined when no payment has this state.
 */
export async function paymentBankCallback(
  deps: UseCaseDeps,
  callback: { app: string; state: string; nok: boolean; cancellation?: boolean },
): Promise<{ redirectUrl: string | null } | undefined> {
  const { db, temporal, logger } = deps;
  const [row] = await db
    .select({ code: obPayments.code, redirectUrl: obHooks.redirectUrl })
    .from(obPayments)
    .leftJoin(obHooks, eq(obHooks.hookHash, obPayments.hookHash))
    .where(and(eq(obPayments.stateDigest, digestOf(callback.state)), eq(obPayments.app, callback.app)))
    .limit(1);
  if (!row) return undefined;
  try {
    // The return from a cancellation's own SCA (decision 0070) is marked; the payment's SCA is not.
    await temporal.workflow
      .getHandle(paymentWorkflowId(row.code))
      .signal(callback.cancellation ? paymentCancellationCallbackSignal : paymentCallbackSignal, {
        nok: callback.nok,
      });
  } catch (error) {
    // The payment ended already (expired, or a repeated callback): the user is still sent on.
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    logger.info({ code: row.code }, 'bank callback after the payment ended');
  }
  return { redirectUrl: row.redirectUrl };
}
