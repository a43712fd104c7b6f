import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  patched,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { OpenBankingActivities } from '../../activities/openbanking/index.ts';
import {
  cancellationCallbackUrlsOf,
  FINAL_PAYMENT_STATES,
  type PaymentState,
  stateOfTransaction,
  statusOfTransaction,
} from '../../domain/openbanking/payments.ts';
import {
  type BankPaymentCancellation,
  EMBEDDED_SCA_SECRET_STORE_PATCH,
  PAYMENT_CANCELLATION_PATCH,
  type PaymentConfirmRequest,
  type PaymentFlowInput,
  PaymentRefusal,
  type PaymentSmsRequest,
  paymentCallbackSignal,
  paymentCancellationCallbackSignal,
  paymentCancelUpdate,
  paymentConfirmUpdate,
  paymentVerifySmsUpdate,
  SCA_SECRET_GONE,
} from '../../domain/openbanking/processes.ts';
import {
  DECOUPLED_BACKOFF_PATCH,
  decoupledPollDelayMs,
  type PsuPresence,
  type ScaApproach,
  Xs2aErrorType,
} from '../../domain/openbanking/xs2a.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';
import { sendWebhook } from '../webhooks/send.ts';
import { bankStartRefusal, xs2aFailureTypeOf } from './bank-refusal.ts';
import { unlessRefused, unrecordableReason } from './data-refusal.ts';

const {
  recordPaymentState,
  recordPaymentConfirmation,
  preparePaymentWebhook,
  readBankPaymentStatus,
  readBankAuthorisation,
} = proxyActivities<OpenBankingActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * One single payment (`ob-payment-<code>`), from its creation to its end:
 * created → confirmed with its code (POST/PUT payment; later confirmations wait for the same outcome)
 * → initiated at the bank → the user's SCA (redirect: the bank sends the browser back; embedded: the
 * bank's one-time code relayed by PUT payment/verify-sms; decoupled: the bank's authorisation read until
 * it ends) → the bank's transaction status (ACSC: EXECUTED; RJCT: REJECTED) → the hook is called.
 * Until it ends the user may cancel it (DELETE payment/{code}, decision 0070): before it reached the
 * bank at once; after, when the bank agrees (at once, or after the user authorised the cancellation on
 * the bank's page): CANCELLED.
 * States: domain/openbanking/payments.ts; decision 0033.
 */
export async function paymentExecution(input: PaymentFlowInput): Promise<PaymentState> {
  const { code } = input;
  let state: PaymentState = 'CREATED';
  /** The state the read model holds (an update answers once its outcome is readable there). */
  let recorded: PaymentState = 'CREATED';
  let confirmRequest: PaymentConfirmRequest | undefined;
  /** The first confirmation has its answer in the read model (waiting for SCA, or ended). */
  let confirmationAnswered = false;
  let approach: ScaApproach | undefined;
  let callback: { nok: boolean } | undefined;
  let scaEnded: 'finalised' | 'failed' | undefined;
  /** The user cancelled the payment and the bank (if it had it) agreed: the process ends CANCELLED. */
  let cancelled = false;
  /** The bank's answer to the cancellation, shared by repeated requests (one DELETE at the bank). */
  let bankCancellation: Promise<BankPaymentCancellation> | undefined;
  /** The cancellation waits for its own SCA at the bank (the user is on its page). */
  let cancellationSca: { scaRedirectUrl: string; scaStatusUrl: string | null } | undefined;

  // Bank calls the API waits for: few, short attempts.
  const waitedFor = proxyActivities<OpenBankingActivities>({
    startToCloseTimeout: input.bankRequestTimeoutMs + 5_000,
    scheduleToCloseTimeout: 2 * input.bankRequestTimeoutMs + 15_000,
    retry: { initialInterval: '1 second', maximumAttempts: 3 },
  });

  setHandler(paymentConfirmUpdate, async (request) => {
    confirmRequest ??= request;
    await condition(() => confirmationAnswered);
  });

  setHandler(
    paymentVerifySmsUpdate,
    async (request: PaymentSmsRequest) => {
      // Since decision 0068 the code waits outside the engine; the Update names it.
      if ('secretRef' in request) patched(EMBEDDED_SCA_SECRET_STORE_PATCH);
      try {
        const scaStatus = await waitedFor.authoriseBankPayment({ code, ...request });
        if (scaStatus === 'finalised' || scaStatus === 'failed') scaEnded ??= scaStatus;
      } catch (error) {
        const type =
          error instanceof ActivityFailure && error.cause instanceof ApplicationFailure
            ? error.cause.type
            : undefined;
        if (type === SCA_SECRET_GONE)
          throw ApplicationFailure.nonRetryable(
            'The SMS code is no longer held (it expired, or an interrupted attempt used it): send it again',
            PaymentRefusal.stepExpired,
          );
        if (type === Xs2aErrorType.ScaCredentialsInvalid) {
          // Too many wrong codes fail the authorisation at the bank: the payment then ends REJECTED.
          if ((await readBankAuthorisation({ code })) === 'failed') scaEnded ??= 'failed';
          throw ApplicationFailure.nonRetryable('The SMS code is wrong', PaymentRefusal.smsCodeInvalid);
        }
        if (type === Xs2aErrorType.ScaExpired)
          throw ApplicationFailure.nonRetryable('The SMS code has expired', PaymentRefusal.smsCodeExpired);
        if (type === Xs2aErrorType.StatusInvalid)
          throw ApplicationFailure.nonRetryable('The SMS code was already used', PaymentRefusal.smsCodeUsed);
        throw error;
      }
      // Answered once the outcome is in the read model, so the caller reads what happened.
      await condition(() => FINAL_PAYMENT_STATES.includes(recorded));
    },
    {
      validator: (_request: PaymentSmsRequest) => {
        if (state !== 'AWAITING_SCA' || approach !== 'EMBEDDED')
          throw ApplicationFailure.nonRetryable(
            'The payment is not waiting for an SMS code',
            PaymentRefusal.notAwaitingCode,
          );
      },
    },
  );

  // Only the first callback counts; a repeated or late one is harmless.
  setHandler(paymentCallbackSignal, (received) => {
    callback ??= received;
  });

  const isFinal = () => FINAL_PAYMENT_STATES.includes(state);
  const notCancellable = () =>
    ApplicationFailure.nonRetryable(
      `The payment is ${state} and can no longer be cancelled`,
      PaymentRefusal.notCancellable,
    );

  /** DELETE /v1/payments/… once, whoever asks; a failed attempt may be asked again. */
  const cancelAtBank = (psu: PsuPresence | undefined) => {
    bankCancellation ??= waitedFor
      .cancelBankPayment({
        code,
        ...cancellationCallbackUrlsOf(input.redirectUri),
        ...(psu ? { psu } : {}),
      })
      .catch((error: unknown) => {
        bankCancellation = undefined;
        if (xs2aFailureTypeOf(error) === Xs2aErrorType.StatusInvalid) throw notCancellable();
        throw bankStartRefusal(error, 'the cancellation', {
          refused: PaymentRefusal.cancellationRefused,
          unavailable: PaymentRefusal.bankUnavailable,
        });
      });
    return bankCancellation;
  };

  setHandler(
    paymentCancelUpdate,
    async (request: { psu?: PsuPresence }) => {
      patched(PAYMENT_CANCELLATION_PATCH);
      if (confirmRequest !== undefined) {
        // The bank is being given the payment: its answer first, then the bank is asked to cancel it.
        await condition(() => state !== 'CREATED');
        if (cancellationSca) return { scaRedirectUrl: cancellationSca.scaRedirectUrl };
        if (isFinal()) throw notCancellable();
        const answer = await cancelAtBank(request.psu);
        if (answer.status === 'authorisationNeeded') {
          cancellationSca ??= { scaRedirectUrl: answer.scaRedirectUrl, scaStatusUrl: answer.scaStatusUrl };
          return { scaRedirectUrl: cancellationSca.scaRedirectUrl };
        }
      }
      // Not at the bank yet, or the bank cancelled it: answered once CANCELLED is readable.
      cancelled = true;
      await condition(() => FINAL_PAYMENT_STATES.includes(recorded));
      if (recorded !== 'CANCELLED') throw notCancellable();
      return { scaRedirectUrl: null };
    },
    {
      validator: (_request: { psu?: PsuPresence }) => {
        if (isFinal()) throw notCancellable();
      },
    },
  );

  // The user is back from the cancellation's page: the bank, not the browser, says how it ended.
  setHandler(paymentCancellationCallbackSignal, async () => {
    const sca = cancellationSca;
    if (!sca || isFinal()) return;
    // A bank that cannot say (after a few short attempts) must not fail or hold up the payment's
    // process: the cancellation stays open.
    const outcome = await waitedFor
      .readBankCancellation({ code, scaStatusUrl: sca.scaStatusUrl })
      .catch(() => 'open' as const);
    if (cancellationSca !== sca) return;
    if (outcome === 'open') return;
    if (outcome === 'cancelled') cancelled = true;
    // Refused by the user: the payment goes on as it was; a new DELETE asks the bank again.
    cancellationSca = undefined;
    bankCancellation = undefined;
  });

  const move = async (next: PaymentState, reason?: string | null) => {
    state = next;
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
    recorded = next;
  };

  const finish = async (outcome: PaymentState, reason: string | null) => {
    await move(outcome, reason);
    confirmationAnswered = true;
    const webhook = await preparePaymentWebhook({ code, state: input.state });
    if (webhook) await sendWebhook(webhook);
    await condition(allHandlersFinished);
    return outcome;
  };

  // 1. The user confirms the payment with its code.
  if (!(await condition(() => confirmRequest !== undefined || cancelled, input.confirmationTimeoutMs)))
    return finish('EXPIRED', 'the payment was not confirmed in time');
  if (cancelled) return finish('CANCELLED', CANCELLED_REASON);
  const confirm = confirmRequest!;
  // Who confirmed, as the database refuses it for good (issue 20): the payment ends FAILED with the
  // reason, which the confirmation answers, before anything reaches the bank.
  const confirmationRecorded = await unlessRefused(
    'the confirmation of the payment',
    { code },
    async () => {
      await recordPaymentConfirmation({ code, ...(confirm.psu ? { psu: confirm.psu } : {}) });
      return true;
    },
    async (refusal) => {
      await finish('FAILED', `the confirmation could not be recorded: ${refusal}`);
      return false;
    },
  );
  if (!confirmationRecorded) return 'FAILED';

  // 2. The bank gets the payment and says how the user authenticates.
  try {
    const started = await waitedFor.initiateBankPayment({
      code,
      confirm,
      redirectUri: input.redirectUri,
      nokRedirectUri: input.nokRedirectUri,
    });
    approach = started.approach;
    if (approach !== 'REDIRECT') await waitedFor.startBankAuthorisation({ code });
  } catch (error) {
    return finish('FAILED', bankFailureReason(error));
  }
  await move('AWAITING_SCA');
  confirmationAnswered = true;

  // 3. The user's SCA at the bank.
  const deadline = Date.now() + input.scaTimeoutMs;
  let scaInTime: boolean;
  if (approach === 'DECOUPLED') {
    scaInTime = false;
    // The reads back off (decision 0061); a history recorded before that polls at the fixed interval.
    const backoff = patched(DECOUPLED_BACKOFF_PATCH);
    for (let attempt = 0; Date.now() < deadline; attempt += 1) {
      const wait = backoff ? decoupledPollDelayMs(input.decoupledPollMs, attempt) : input.decoupledPollMs;
      // Woken early by a cancellation (decision 0070); otherwise the same timer as before.
      if (await condition(() => cancelled, Math.min(wait, Math.max(1, deadline - Date.now())))) break;
      const scaStatus = await readBankAuthorisation({ code });
      if (scaStatus === 'finalised' || scaStatus === 'failed') {
        scaEnded = scaStatus;
        scaInTime = true;
        break;
      }
    }
  } else {
    scaInTime = await condition(
      () => cancelled || (approach === 'REDIRECT' ? callback !== undefined : scaEnded !== undefined),
      input.scaTimeoutMs,
    );
  }
  if (cancelled) return finish('CANCELLED', CANCELLED_REASON);
  if (!scaInTime)
    return finish('EXPIRED', 'the user did not complete the authentication at the bank in time');
  if (scaEnded === 'failed') return finish('REJECTED', 'the authentication at the bank failed');

  // 4. The bank, not the browser, says how the payment stands; it may take a moment to settle.
  for (;;) {
    const transactionStatus = await readBankPaymentStatus({ code });
    // The bank cancelled it while it was being read: the user's cancellation, not a rejection.
    if (cancelled || (transactionStatus === 'CANC' && bankCancellation))
      return finish('CANCELLED', CANCELLED_REASON);
    if (transactionStatus === 'RCVD')
      return finish('REJECTED', 'the user did not authorise the payment at the bank');
    if (statusOfTransaction(transactionStatus) !== 'WAITING')
      return finish(
        stateOfTransaction(transactionStatus),
        transactionStatus === 'RJCT' || transactionStatus === 'CANC'
          ? `the bank reports the payment as ${transactionStatus}`
          : null,
      );
    if ((state as PaymentState) !== 'EXECUTING') await move('EXECUTING');
    // A bank slow to settle is asked less often once the SCA deadline has passed.
    if (await condition(() => cancelled, Date.now() > deadline ? input.scaTimeoutMs : input.decoupledPollMs))
      return finish('CANCELLED', CANCELLED_REASON);
  }
}

const CANCELLED_REASON = 'the user cancelled the payment';

function bankFailureReason(error: unknown): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof Error ? cause.message : 'the bank could not be reached';
}
