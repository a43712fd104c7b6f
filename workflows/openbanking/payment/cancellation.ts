import { condition, patched, setHandler } from '@temporalio/workflow';
import { cancellationCallbackUrlsOf } from '../../../domain/openbanking/payments.ts';
import {
  type BankPaymentCancellation,
  PAYMENT_CANCELLATION_PATCH,
  PaymentRefusal,
  paymentCancellationCallbackSignal,
  paymentCancelUpdate,
} from '../../../domain/openbanking/processes.ts';
import { type PsuPresence, Xs2aErrorType } from '../../../domain/openbanking/xs2a.ts';
import { bankStartRefusal, xs2aFailureTypeOf } from '../bank-refusal.ts';
import type { PaymentProcess } from './state.ts';

/**
 * The cancellation (DELETE payment/{code}, decision 0070): until the payment ends the user may cancel
 * it; before it reached the bank at once; after, when the bank agrees (at once, or after the user
 * authorised the cancellation on the bank's page, paymentCancellationCallbackSignal): CANCELLED.
 */
export function handleCancellation(payment: PaymentProcess): void {
  setHandler(paymentCancelUpdate, (request) => cancel(payment, request), {
    validator: (_request: { psu?: PsuPresence }) => {
      if (payment.isFinal()) throw payment.notCancellable();
    },
  });
  setHandler(paymentCancellationCallbackSignal, () => cancellationCallback(payment));
}

async function cancel(payment: PaymentProcess, request: { psu?: PsuPresence }) {
  patched(PAYMENT_CANCELLATION_PATCH);
  if (payment.confirmRequest !== undefined) {
    // The bank is being given the payment: its answer first, then the bank is asked to cancel it.
    await condition(() => payment.state !== 'CREATED');
    if (payment.cancellationSca) return { scaRedirectUrl: payment.cancellationSca.scaRedirectUrl };
    if (payment.isFinal()) throw payment.notCancellable();
    const answer = await cancelAtBank(payment, request.psu);
    if (answer.status === 'authorisationNeeded') {
      payment.cancellationSca ??= {
        scaRedirectUrl: answer.scaRedirectUrl,
        scaStatusUrl: answer.scaStatusUrl,
      };
      return { scaRedirectUrl: payment.cancellationSca.scaRedirectUrl };
    }
  }
  // Not at the bank yet, or the bank cancelled it: answered once CANCELLED is readable.
  payment.cancelled = true;
  await condition(() => payment.recordedFinal());
  if (payment.recorded !== 'CANCELLED') throw payment.notCancellable();
  return { scaRedirectUrl: null };
}

/** DELETE /v1/payments/… once, whoever asks; a failed attempt may be asked again. */
function cancelAtBank(
  payment: PaymentProcess,
  psu: PsuPresence | undefined,
): Promise<BankPaymentCancellation> {
  payment.bankCancellation ??= payment.bank
    .cancelBankPayment({
      code: payment.code,
      ...cancellationCallbackUrlsOf(payment.input.redirectUri),
      ...(psu ? { psu } : {}),
    })
    .catch((error: unknown) => {
      payment.bankCancellation = undefined;
      if (xs2aFailureTypeOf(error) === Xs2aErrorType.StatusInvalid) throw payment.notCancellable();
      throw bankStartRefusal(error, 'the cancellation', {
        refused: PaymentRefusal.cancellationRefused,
        unavailable: PaymentRefusal.bankUnavailable,
      });
    });
  return payment.bankCancellation;
}

/** The user is back from the cancellation's page: the bank, not the browser, says how it ended. */
async function cancellationCallback(payment: PaymentProcess): Promise<void> {
  const sca = payment.cancellationSca;
  if (!sca || payment.isFinal()) return;
  // A bank that cannot say (after a few short attempts) must not fail or hold up the payment's
  // process: the cancellation stays open.
  const outcome = await payment.bank
    .readBankCancellation({ code: payment.code, scaStatusUrl: sca.scaStatusUrl })
    .catch(() => 'open' as const);
  if (payment.cancellationSca !== sca) return;
  if (outcome === 'open') return;
  if (outcome === 'cancelled') payment.cancelled = true;
  // Refused by the user: the payment goes on as it was; a new DELETE asks the bank again.
  payment.cancellationSca = undefined;
  payment.bankCancellation = undefined;
}
