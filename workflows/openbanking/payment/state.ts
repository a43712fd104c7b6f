import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { FINAL_PAYMENT_STATES, type PaymentState } from '../../../domain/openbanking/payments.ts';
import {
  type BankPaymentCancellation,
  type PaymentConfirmRequest,
  type PaymentFlowInput,
  PaymentRefusal,
} from '../../../domain/openbanking/processes.ts';
import type { ScaApproach } from '../../../domain/openbanking/xs2a.ts';
import { BusinessStatus } from '../../../domain/search-attributes.ts';
import { sendWebhook } from '../../webhooks/send.ts';
import { bankCallsWaitedFor } from '../activities.ts';
import { unlessRefused, unrecordableReason } from '../data-refusal.ts';
import { preparePaymentWebhook, recordPaymentState } from './activities.ts';

const CANCELLED_REASON = 'the user cancelled the payment';

/**
 * One payment's process state: where it stands (`state`) and what the read model holds (`recorded`),
 * what the user and the bank have said so far, and the moves (`move`, `finish`). The phases
 * (confirmation.ts, redirect.ts, embedded.ts, decoupled.ts, cancellation.ts, settlement.ts) are
 * functions over it.
 */
export class PaymentProcess {
  readonly code: string;
  state: PaymentState = 'CREATED';
  /** The state the read model holds (an update answers once its outcome is readable there). */
  recorded: PaymentState = 'CREATED';
  confirmRequest: PaymentConfirmRequest | undefined;
  /** The first confirmation has its answer in the read model (waiting for SCA, or ended). */
  confirmationAnswered = false;
  /** How the user authenticates, as the bank said when it got the payment. */
  approach: ScaApproach | undefined;
  /** The bank sent the browser back (redirect): only the first callback counts. */
  callback: { nok: boolean } | undefined;
  scaEnded: 'finalised' | 'failed' | undefined;
  /** The user cancelled the payment and the bank (if it had it) agreed: the process ends CANCELLED. */
  cancelled = false;
  /** The bank's answer to the cancellation, shared by repeated requests (one DELETE at the bank). */
  bankCancellation: Promise<BankPaymentCancellation> | undefined;
  /** The cancellation waits for its own SCA at the bank (the user is on its page). */
  cancellationSca: { scaRedirectUrl: string; scaStatusUrl: string | null } | undefined;
  /** The bank calls the API waits for. */
  readonly bank: ReturnType<typeof bankCallsWaitedFor>;

  constructor(readonly input: PaymentFlowInput) {
    this.code = input.code;
    this.bank = bankCallsWaitedFor(input.bankRequestTimeoutMs);
  }

  isFinal(): boolean {
    return FINAL_PAYMENT_STATES.includes(this.state);
  }

  /** The read model holds an end (what updates wait for before they answer). */
  recordedFinal(): boolean {
    return FINAL_PAYMENT_STATES.includes(this.recorded);
  }

  notCancellable(): ApplicationFailure {
    return ApplicationFailure.nonRetryable(
      `The payment is ${this.state} and can no longer be cancelled`,
      PaymentRefusal.notCancellable,
    );
  }

  /** Moves the payment to its next state, in the workflow and then in the read model. */
  async move(next: PaymentState, reason?: string | null): Promise<void> {
    const { code } = this;
    this.state = next;
    upsertSearchAttributes([{ key: BusinessStatus, value: next }]);
    // A reason the database refuses (the bank's text, issue 20): the state is recorded without it.
    await unlessRefused(
      `the state ${next} of the payment`,
      { code },
      () => recordPaymentState({ code, state: next, ...(reason !== undefined ? { reason } : {}) }),
      async (refusal) => {
        if (reason === undefined || reason === null) throw ApplicationFailure.nonRetryable(refusal);
        await recordPaymentState({ code, state: next, reason: unrecordableReason(refusal) });
      },
    );
    this.recorded = next;
  }

  /** Ends the payment: its outcome recorded (which answers the confirmation), then the hook is called. */
  async finish(outcome: PaymentState, reason: string | null): Promise<PaymentState> {
    await this.move(outcome, reason);
    this.confirmationAnswered = true;
    const webhook = await preparePaymentWebhook({ code: this.code, state: this.input.state });
    if (webhook) await sendWebhook(webhook);
    await condition(allHandlersFinished);
    return outcome;
  }

  finishCancelled(): Promise<PaymentState> {
    return this.finish('CANCELLED', CANCELLED_REASON);
  }
}
