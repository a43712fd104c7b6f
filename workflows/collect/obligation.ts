import {
  allHandlersFinished,
  condition,
  patched,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { ObligationStatus } from '../../domain/collect/obligation.ts';
import {
  cardPaymentUpdate,
  changeExpiryUpdate,
  chargeCardUpdate,
  finalizeHoldUpdate,
  type ObligationInput,
  payObligationUpdate,
  reverseHoldUpdate,
} from '../../domain/collect/processes.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';
import { notifyMerchant } from './merchant-notifications.ts';
import { Obligation } from './obligation-state.ts';

/** The change id of a run started to take back a payment (decision 0063). */
export const STATEMENT_REVERSAL_PATCH = 'collect-statement-reversal-unpays';

/**
 * One obligation, hold, payout or saved-card charge, keyed by its IDN: open until paid, collected,
 * finalized, reversed or (a card verification) saved, expired by a timer at its expiry; every final
 * state is recorded and notified to the merchant once. A run started with a `reversal` (the bank took
 * back the statement credit that paid it, decision 0063) first un-pays it and tells the merchant
 * REVERSED, then is the open obligation again until paid or expired.
 */
export async function collectObligation(input: ObligationInput): Promise<ObligationStatus> {
  const obligation = new Obligation(input);
  handleUpdates(obligation);
  if (input.reversal && patched(STATEMENT_REVERSAL_PATCH)) {
    // Not paid by that credit (any more): nothing to take back, nothing to tell.
    if (!(await obligation.takeBackPayment(input.reversal))) return obligation.status;
    upsertSearchAttributes([{ key: BusinessStatus, value: obligation.status }]);
    await notifyMerchant(obligation.reversalNotification());
  }
  // A saved-card charge starts at once; the merchant's request waits for it through chargeCardUpdate.
  if (input.kind === 'card_charge') void obligation.chargeOnce();
  if (input.kind === 'payout_provider') await obligation.creditProviderAccount();

  for (;;) {
    while (obligation.isOpen()) {
      const deadline = obligation.expiresAtMs;
      const remainingMs = deadline - Date.now();
      if (remainingMs <= 0) break;
      // Wakes on a final state, a moved expiry (re-armed with the new one) or the deadline.
      await condition(() => !obligation.isOpen() || obligation.expiresAtMs !== deadline, remainingMs);
    }
    // A capture or void under way decides the outcome before the expiry does; so does a payment
    // being recorded, which the database may refuse (issue 20): then the obligation is open again.
    await condition(() => !obligation.acquirerBusy && !obligation.settling);
    if (!obligation.isOpen() || obligation.expiresAtMs <= Date.now()) break;
  }
  if (obligation.isOpen()) await obligation.expire();

  // A handler still writing the read model finishes before the merchant hears of it.
  await condition(allHandlersFinished);
  upsertSearchAttributes([{ key: BusinessStatus, value: obligation.status }]);
  const notification = obligation.notification();
  if (notification) await notifyMerchant(notification);
  return obligation.status;
}

/**
 * The Updates an obligation answers, each checked by its validator (a refusal leaves no trace in the
 * history) before it moves the obligation. Registered in this order before the first await: Updates
 * that arrived with the start are dispatched as their handler is set.
 */
function handleUpdates(obligation: Obligation): void {
  // A cash desk or bank statement pays an office bill, a deposit slip, a transfer; an office pays out cash.
  setHandler(payObligationUpdate, (payment) => obligation.payAtOffice(payment), {
    validator: ({ source }) => obligation.refuseUnlessPayableAtOffice(source),
  });
  setHandler(finalizeHoldUpdate, ({ amountMinor }) => obligation.finalizeHold(amountMinor), {
    validator: ({ amountMinor }) => obligation.refuseFinalize(amountMinor),
  });
  setHandler(reverseHoldUpdate, () => obligation.reverseHold(), {
    validator: () => obligation.refuseReverse(),
  });
  setHandler(changeExpiryUpdate, ({ expiresAt }) => obligation.changeExpiry(expiresAt), {
    validator: ({ expiresAt }) => obligation.refuseExpiryChange(expiresAt),
  });
  // The hosted card page (api/collect/card-page): the card is authorised, declined or the customer cancels.
  setHandler(cardPaymentUpdate, (decision) => obligation.payByCard(decision), {
    validator: (decision) => obligation.refuseCardPayment(decision),
  });
  setHandler(chargeCardUpdate, () => obligation.chargeSavedCard(), {
    validator: () => obligation.refuseCharge(),
  });
}
