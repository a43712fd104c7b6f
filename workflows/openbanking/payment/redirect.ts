import { condition, setHandler } from '@temporalio/workflow';
import { paymentCallbackSignal } from '../../../domain/openbanking/processes.ts';
import type { PaymentProcess } from './state.ts';

/** Redirect SCA: the user authenticates on the bank's page, and the bank sends the browser back. */
export function handlePaymentCallback(payment: PaymentProcess): void {
  // Only the first callback counts; a repeated or late one is harmless.
  setHandler(paymentCallbackSignal, (received) => {
    payment.callback ??= received;
  });
}

/** The user came back from the bank in time (true), or not (false); a cancellation wakes it early. */
export function redirectScaEnded(payment: PaymentProcess): Promise<boolean> {
  return condition(() => payment.cancelled || payment.callback !== undefined, payment.input.scaTimeoutMs);
}
