import { condition } from '@temporalio/workflow';
import {
  type PaymentState,
  stateOfTransaction,
  statusOfTransaction,
} from '../../../domain/openbanking/payments.ts';
import { readBankPaymentStatus } from './activities.ts';
import type { PaymentProcess } from './state.ts';

/**
 * After the SCA the bank, not the browser, says how the payment stands (ACSC: EXECUTED; RJCT:
 * REJECTED); it may take a moment to settle, EXECUTING meanwhile. A bank slow to settle is asked less
 * often once the SCA deadline has passed.
 */
export async function settle(payment: PaymentProcess, deadline: number): Promise<PaymentState> {
  const { code, input } = payment;
  for (;;) {
    const transactionStatus = await readBankPaymentStatus({ code });
    // The bank cancelled it while it was being read: the user's cancellation, not a rejection.
    if (payment.cancelled || (transactionStatus === 'CANC' && payment.bankCancellation))
      return payment.finishCancelled();
    if (transactionStatus === 'RCVD')
      return payment.finish('REJECTED', 'the user did not authorise the payment at the bank');
    if (statusOfTransaction(transactionStatus) !== 'WAITING')
      return payment.finish(
        stateOfTransaction(transactionStatus),
        transactionStatus === 'RJCT' || transactionStatus === 'CANC'
          ? `the bank reports the payment as ${transactionStatus}`
          : null,
      );
    if (payment.state !== 'EXECUTING') await payment.move('EXECUTING');
    const wait = Date.now() > deadline ? input.scaTimeoutMs : input.decoupledPollMs;
    if (await condition(() => payment.cancelled, wait)) return payment.finishCancelled();
  }
}
