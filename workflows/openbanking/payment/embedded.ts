import { ApplicationFailure, condition, patched, setHandler } from '@temporalio/workflow';
import {
  EMBEDDED_SCA_SECRET_STORE_PATCH,
  PaymentRefusal,
  type PaymentSmsRequest,
  paymentVerifySmsUpdate,
  SCA_SECRET_GONE,
} from '../../../domain/openbanking/processes.ts';
import { Xs2aErrorType } from '../../../domain/openbanking/xs2a.ts';
import { failureTypeOf } from '../bank-refusal.ts';
import { readBankAuthorisation } from './activities.ts';
import type { PaymentProcess } from './state.ts';

/**
 * Embedded SCA: the bank's one-time code, relayed by PUT payment/verify-sms (paymentVerifySmsUpdate) to
 * the payment's authorisation at the bank; answered once the outcome is in the read model.
 */
export function handleOneTimeCode(payment: PaymentProcess): void {
  setHandler(paymentVerifySmsUpdate, (request) => relayOneTimeCode(payment, request), {
    validator: (_request: PaymentSmsRequest) => {
      if (payment.state !== 'AWAITING_SCA' || payment.approach !== 'EMBEDDED')
        throw ApplicationFailure.nonRetryable(
          'The payment is not waiting for an SMS code',
          PaymentRefusal.notAwaitingCode,
        );
    },
  });
}

/** The code ended the authorisation in time (true), or not (false); a cancellation wakes it early. */
export function embeddedScaEnded(payment: PaymentProcess): Promise<boolean> {
  return condition(() => payment.cancelled || payment.scaEnded !== undefined, payment.input.scaTimeoutMs);
}

async function relayOneTimeCode(payment: PaymentProcess, request: PaymentSmsRequest): Promise<void> {
  const { code } = payment;
  // Since decision 0068 the code waits outside the engine; the Update names it.
  if ('secretRef' in request) patched(EMBEDDED_SCA_SECRET_STORE_PATCH);
  try {
    const scaStatus = await payment.bank.authoriseBankPayment({ code, ...request });
    if (scaStatus === 'finalised' || scaStatus === 'failed') payment.scaEnded ??= scaStatus;
  } catch (error) {
    throw await oneTimeCodeRefusal(payment, error);
  }
  // Answered once the outcome is in the read model, so the caller reads what happened.
  await condition(() => payment.recordedFinal());
}

/** The refusal the Update answers for a code the bank did not take (any other failure as it is). */
async function oneTimeCodeRefusal(payment: PaymentProcess, error: unknown): Promise<unknown> {
  const type = failureTypeOf(error);
  if (type === SCA_SECRET_GONE)
    return ApplicationFailure.nonRetryable(
      'The SMS code is no longer held (it expired, or an interrupted attempt used it): send it again',
      PaymentRefusal.stepExpired,
    );
  if (type === Xs2aErrorType.ScaCredentialsInvalid) {
    // Too many wrong codes fail the authorisation at the bank: the payment then ends REJECTED.
    if ((await readBankAuthorisation({ code: payment.code })) === 'failed') payment.scaEnded ??= 'failed';
    return ApplicationFailure.nonRetryable('The SMS code is wrong', PaymentRefusal.smsCodeInvalid);
  }
  if (type === Xs2aErrorType.ScaExpired)
    return ApplicationFailure.nonRetryable('The SMS code has expired', PaymentRefusal.smsCodeExpired);
  if (type === Xs2aErrorType.StatusInvalid)
    return ApplicationFailure.nonRetryable('The SMS code was already used', PaymentRefusal.smsCodeUsed);
  return error;
}
