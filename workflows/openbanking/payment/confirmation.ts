import { condition, setHandler } from '@temporalio/workflow';
import { paymentConfirmUpdate } from '../../../domain/openbanking/processes.ts';
import { causeMessageOf } from '../bank-refusal.ts';
import { unlessRefused } from '../data-refusal.ts';
import { recordPaymentConfirmation } from './activities.ts';
import type { PaymentProcess } from './state.ts';

/**
 * The confirmation (POST/PUT payment): the first one initiates the payment at the bank; later ones wait
 * for the same answer, given once the read model holds it (waiting for SCA, or ended).
 */
export function handleConfirmation(payment: PaymentProcess): void {
  setHandler(paymentConfirmUpdate, async (request) => {
    payment.confirmRequest ??= request;
    await condition(() => payment.confirmationAnswered);
  });
}

/**
 * Who confirmed, in the read model. As the database refuses it for good (issue 20) the payment ends
 * FAILED with the reason, which the confirmation answers, before anything reaches the bank (false).
 */
export function recordConfirmation(payment: PaymentProcess): Promise<boolean> {
  const { code } = payment;
  const { psu } = payment.confirmRequest!;
  return unlessRefused(
    'the confirmation of the payment',
    { code },
    async () => {
      await recordPaymentConfirmation({ code, ...(psu ? { psu } : {}) });
      return true;
    },
    async (refusal) => {
      await payment.finish('FAILED', `the confirmation could not be recorded: ${refusal}`);
      return false;
    },
  );
}

/**
 * The bank gets the payment and says how the user authenticates (and, but for a redirect, the
 * authorisation is started); answers why the bank did not take it, if it did not.
 */
export async function initiateAtBank(payment: PaymentProcess): Promise<string | undefined> {
  const { code, input } = payment;
  try {
    const started = await payment.bank.initiateBankPayment({
      code,
      confirm: payment.confirmRequest!,
      redirectUri: input.redirectUri,
      nokRedirectUri: input.nokRedirectUri,
    });
    payment.approach = started.approach;
    if (payment.approach !== 'REDIRECT') await payment.bank.startBankAuthorisation({ code });
    return undefined;
  } catch (error) {
    return causeMessageOf(error);
  }
}
