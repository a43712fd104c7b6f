import { condition } from '@temporalio/workflow';
import type { PaymentState } from '../../domain/openbanking/payments.ts';
import type { PaymentFlowInput } from '../../domain/openbanking/processes.ts';
import { handleCancellation } from './payment/cancellation.ts';
import { handleConfirmation, initiateAtBank, recordConfirmation } from './payment/confirmation.ts';
import { decoupledScaEnded } from './payment/decoupled.ts';
import { embeddedScaEnded, handleOneTimeCode } from './payment/embedded.ts';
import { handlePaymentCallback, redirectScaEnded } from './payment/redirect.ts';
import { settle } from './payment/settlement.ts';
import { PaymentProcess } from './payment/state.ts';

/**
 * One single payment (`ob-payment-<code>`), from its creation to its end:
 * created → confirmed with its code (POST/PUT payment; later confirmations wait for the same outcome)
 * → initiated at the bank → the user's SCA (redirect: the bank sends the browser back; embedded: the
 * bank's one-time code relayed by PUT payment/verify-sms; decoupled: the bank's authorisation read until
 * it ends) → the bank's transaction status (ACSC: EXECUTED; RJCT: REJECTED) → the hook is called.
 * Until it ends the user may cancel it (DELETE payment/{code}, decision 0070): before it reached the
 * bank at once; after, when the bank agrees (at once, or after the user authorised the cancellation on
 * the bank's page): CANCELLED.
 * States: domain/openbanking/payments.ts; decision 0033. Its state is one PaymentProcess
 * (payment/state.ts), its Updates, Signals and SCA approaches are phases of their own (payment/*.ts).
 */
export async function paymentExecution(input: PaymentFlowInput): Promise<PaymentState> {
  const payment = new PaymentProcess(input);
  handleConfirmation(payment);
  handleOneTimeCode(payment);
  handlePaymentCallback(payment);
  handleCancellation(payment);

  // 1. The user confirms the payment with its code.
  const confirmed = () => payment.confirmRequest !== undefined || payment.cancelled;
  if (!(await condition(confirmed, input.confirmationTimeoutMs)))
    return payment.finish('EXPIRED', 'the payment was not confirmed in time');
  if (payment.cancelled) return payment.finishCancelled();
  if (!(await recordConfirmation(payment))) return 'FAILED';

  // 2. The bank gets the payment and says how the user authenticates.
  const refusal = await initiateAtBank(payment);
  if (refusal !== undefined) return payment.finish('FAILED', refusal);
  await payment.move('AWAITING_SCA');
  payment.confirmationAnswered = true;

  // 3. The user's SCA at the bank, by the bank's approach.
  const deadline = Date.now() + input.scaTimeoutMs;
  const scaInTime =
    payment.approach === 'DECOUPLED'
      ? await decoupledScaEnded(payment, deadline)
      : payment.approach === 'REDIRECT'
        ? await redirectScaEnded(payment)
        : await embeddedScaEnded(payment);
  if (payment.cancelled) return payment.finishCancelled();
  if (!scaInTime)
    return payment.finish('EXPIRED', 'the user did not complete the authentication at the bank in time');
  if (payment.scaEnded === 'failed')
    return payment.finish('REJECTED', 'the authentication at the bank failed');

  // 4. The bank, not the browser, says how the payment stands.
  return settle(payment, deadline);
}
