import {
  ActivityFailure,
  allHandlersFinished,
  condition,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { CollectActivities } from '../../activities/collect/index.ts';
import { billingCodes } from '../../domain/collect/billing.ts';
import {
  type BillingCheckOutcome,
  type BillingPaymentInput,
  type BillingPaymentStart,
  billingCheckedUpdate,
} from '../../domain/collect/processes.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';
import { delayBeforeNextAttempt } from '../../domain/webhooks/delivery.ts';

const { recordBillingPayment } = proxyActivities<CollectActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * An office payment of an IDN owned by a merchant's billing system (`billing-<idn>-<tid>`): check it
 * with /pay/init (80 and network errors retried while the office waits), take the money (ACTION=PAY),
 * then confirm with /pay/confirm until the merchant answers: 00 or 94 (already done) confirmed; 80,
 * a network error or an unreadable reply retried along COLLECT_BILLING_RETRY_SCHEDULE; 13, 14, 62, 93,
 * 96 final (rejected: the money is held for manual settlement). A billing URL the outbound-URL policy
 * refuses ends either call at once (refused, or failed).
 */
export async function billingPayment(input: BillingPaymentInput): Promise<string> {
  let checked: BillingCheckOutcome | undefined;
  setHandler(billingCheckedUpdate, async () => {
    await condition(() => checked !== undefined);
    return checked!;
  });

  // The check retries 80 and network errors only as long as the office waits.
  const { checkBill } = proxyActivities<CollectActivities>({
    startToCloseTimeout: input.requestTimeoutMs + 10_000,
    scheduleToCloseTimeout: input.checkTimeoutMs,
    retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '5 seconds' },
  });
  // A confirmation attempt returns the merchant's answer; activity retries cover our infrastructure.
  const { confirmBill } = proxyActivities<CollectActivities>({
    startToCloseTimeout: input.requestTimeoutMs + 10_000,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  const payment: BillingPaymentStart = {
    tid: input.tid,
    idn: input.idn,
    merchantMin: input.merchantMin,
    action: input.action,
    date: input.date,
  };

  // The office's answer is released only once the read model says what happened.
  let outcome: BillingCheckOutcome;
  try {
    const reply = await checkBill(payment);
    const code = reply.code;
    if (billingCodes[code].effect !== 'ok') outcome = { result: 'refused', code };
    else if (reply.amountMinor === undefined || reply.amountMinor <= 0)
      outcome = { result: 'invalid_reply', code, error: 'the merchant confirmed the IDN without an AMOUNT' };
    else
      outcome = {
        result: 'ok',
        code,
        amountMinor: reply.amountMinor,
        shortDesc: reply.shortDesc,
        invoices: reply.invoices,
      };
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    outcome = { result: 'unavailable', error: error.cause?.message ?? error.message };
  }

  if (outcome.result !== 'ok') {
    const checkCode = outcome.result === 'unavailable' ? '80' : outcome.code;
    return finish('refused', { checkCode }, outcome);
  }
  const details = {
    checkCode: outcome.code,
    amountMinor: outcome.amountMinor,
    shortDesc: outcome.shortDesc,
    invoices: outcome.invoices,
  };
  if (input.action === 'CHECK') return finish('checked', details, outcome);

  // The office has taken the money: from here the confirmation must reach the merchant.
  await recordBillingPayment({
    tid: input.tid,
    status: 'confirming',
    final: false,
    ...details,
    // The office has the money: posted to the ledger with this status.
    source: input.source,
  });
  checked = outcome;
  const totalMinor = outcome.amountMinor;
  const invoices = outcome.invoices;
  for (let attempt = 1; ; attempt++) {
    const result = await confirmBill({ payment, attempt, totalMinor, invoices });
    if (result.kind === 'answered') {
      const confirmCode = result.reply.code;
      return finish(billingCodes[confirmCode].effect === 'ok' ? 'confirmed' : 'rejected', { confirmCode });
    }
    // Refused by the outbound-URL policy: no later attempt can succeed (decision 0027), failed now.
    const wait = result.permanent ? undefined : delayBeforeNextAttempt(input.retryScheduleMs, attempt);
    if (wait === undefined) return finish('failed', {});
    await sleep(wait);
  }

  async function finish(
    status: 'refused' | 'checked' | 'confirmed' | 'rejected' | 'failed',
    fields: {
      checkCode?: string;
      confirmCode?: string;
      amountMinor?: number;
      shortDesc?: string | undefined;
      invoices?: string | undefined;
    },
    answer?: BillingCheckOutcome,
  ): Promise<string> {
    await recordBillingPayment({ tid: input.tid, status, final: true, ...fields });
    if (answer) checked = answer;
    upsertSearchAttributes([{ key: BusinessStatus, value: status }]);
    await condition(allHandlersFinished);
    return status;
  }
}
