import { condition, patched } from '@temporalio/workflow';
import { DECOUPLED_BACKOFF_PATCH, decoupledPollDelayMs } from '../../../domain/openbanking/xs2a.ts';
import { readBankAuthorisation } from './activities.ts';
import type { PaymentProcess } from './state.ts';

/**
 * Decoupled SCA: the user approves in the bank's app, and the gateway reads the authorisation at the
 * bank until it ends (true), or the deadline passes or the payment is cancelled (false).
 */
export async function decoupledScaEnded(payment: PaymentProcess, deadline: number): Promise<boolean> {
  const { decoupledPollMs } = payment.input;
  // The reads back off (decision 0061); a history recorded before that polls at the fixed interval.
  const backoff = patched(DECOUPLED_BACKOFF_PATCH);
  for (let attempt = 0; Date.now() < deadline; attempt += 1) {
    const wait = backoff ? decoupledPollDelayMs(decoupledPollMs, attempt) : decoupledPollMs;
    // Woken early by a cancellation (decision 0070); otherwise the same timer as before.
    if (await condition(() => payment.cancelled, Math.min(wait, Math.max(1, deadline - Date.now())))) break;
    const scaStatus = await readBankAuthorisation({ code: payment.code });
    if (scaStatus === 'finalised' || scaStatus === 'failed') {
      payment.scaEnded = scaStatus;
      return true;
    }
  }
  return false;
}
