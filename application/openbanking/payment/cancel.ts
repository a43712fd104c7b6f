import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { UserIdentity } from '../../../credentials/openbanking/identity.ts';
import { FINAL_PAYMENT_STATES, type PaymentState } from '../../../domain/openbanking/payments.ts';
import {
  PaymentRefusal,
  paymentCancelUpdate,
  paymentWorkflowId,
} from '../../../domain/openbanking/processes.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';
import { Refusal } from '../../shared/refusal.ts';
import { type PsuRequest, psuOf } from '../psu.ts';
import { findUserPayment, type PaymentView, toPaymentView } from './read.ts';

/** Cancelling a single payment (decision 0070): an Update of its workflow, with the bank's own SCA when it asks. */

export interface PaymentCancellationView extends PaymentView {
  /** CANCELLED, or AWAITING_SCA: the bank wants the user to authorise the cancellation on its page. */
  cancellation: 'CANCELLED' | 'AWAITING_SCA';
  /** AWAITING_SCA: the bank's page to send the user's browser to (back to the payment's callback). */
  scaRedirectUrl: string | null;
}

const notCancellable = (state: PaymentState) =>
  Refusal.conflict('payment_not_cancellable', `The payment is ${state} and can no longer be cancelled`);

const CANCEL_REFUSALS: Record<string, (message: string) => Refusal> = {
  [PaymentRefusal.notCancellable]: (message) => Refusal.conflict('payment_not_cancellable', message),
  [PaymentRefusal.cancellationRefused]: (message) =>
    new Refusal(502, 'bank_refused', `The bank refused the cancellation: ${message}`),
  [PaymentRefusal.bankUnavailable]: () =>
    new Refusal(503, 'bank_unavailable', 'The bank could not be reached; try again later'),
};

/**
 * DELETE payment/{code}: the user cancels their payment (an Update of its workflow). Not yet at the bank,
 * or cancelled by the bank at once: CANCELLED. The bank wants its own SCA for the cancellation: the
 * payment as it stands and the bank's page; the payment ends CANCELLED once the user approved there (a
 * refusal leaves it as it was). Throws Refusal: 404 not the user's, 409 `payment_not_cancellable` (ended,
 * or the bank says it is past cancelling), 502 `bank_refused`, 503 `bank_unavailable`.
 */
export async function cancelPayment(
  deps: UseCaseDeps,
  { user, code, psu: psuRequest }: { user: UserIdentity; code: string; psu: PsuRequest },
): Promise<PaymentCancellationView> {
  const { db, temporal } = deps;
  const row = await findUserPayment(db, user, code);
  if (FINAL_PAYMENT_STATES.includes(row.state)) throw notCancellable(row.state);
  const psu = psuOf(psuRequest);
  let scaRedirectUrl: string | null;
  try {
    ({ scaRedirectUrl } = await temporal.workflow
      .getHandle(paymentWorkflowId(row.code))
      .executeUpdate(paymentCancelUpdate, { args: [psu ? { psu } : {}] }));
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      const refusal = CANCEL_REFUSALS[error.cause.type ?? ''];
      if (refusal) throw refusal(error.cause.message);
    }
    // The payment ended meanwhile: its record says how.
    if (error instanceof WorkflowNotFoundError)
      throw notCancellable((await findUserPayment(db, user, row.code)).state);
    throw error;
  }
  return {
    ...toPaymentView(await findUserPayment(db, user, row.code)),
    cancellation: scaRedirectUrl ? 'AWAITING_SCA' : 'CANCELLED',
    scaRedirectUrl,
  };
}
