import {
  allHandlersFinished,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { CollectActivities } from '../../activities/collect/index.ts';
import { isFinalOutcome } from '../../domain/collect/notification-packet.ts';
import {
  type MerchantNotification,
  type MerchantNotificationsInput,
  notificationQueuedSignal,
  type PendingNotification,
} from '../../domain/collect/processes.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';
import { delayBeforeNextAttempt } from '../../domain/webhooks/delivery.ts';

const { queueMerchantNotification, recordNotificationSchedule } = proxyActivities<CollectActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Notifies the merchant of a status change, durably and exactly once per (invoice, status): the
 * change is recorded and handed to the merchant's delivery workflow, which POSTs it (batched with
 * others), retries it along COLLECT_NOTIFY_RETRY_SCHEDULE and records every attempt. Returns as soon
 * as the change is recorded, not when the merchant has answered. Call only from workflow code.
 */
export async function notifyMerchant(n: MerchantNotification): Promise<void> {
  await queueMerchantNotification(n);
}

/** Queues one notification from outside a workflow (operator tools, tests): start this with it. */
export async function sendMerchantNotification(n: MerchantNotification): Promise<void> {
  await notifyMerchant(n);
}

/** Keeps each run's history small: a long-lived merchant continues as new after this many POSTs. */
const BATCHES_PER_RUN = 200;

/**
 * The notifications of one merchant: waits for status changes, POSTs those that are due in one
 * batch (one line per invoice), reads the merchant's answer per invoice (OK: delivered, NO: unknown
 * to the merchant, both final; ERR, no answer or no usable reply: retried on the schedule; a URL the
 * outbound-URL policy refuses: failed at once), and ends
 * when nothing is left; the next status change starts it again.
 */
export async function merchantNotifications(input: MerchantNotificationsInput): Promise<void> {
  const pending = new Map(input.pending.map((entry) => [entry.notificationId, entry]));
  let arrived = false;

  setHandler(notificationQueuedSignal, ({ notificationId, invoice }) => {
    // A repeated signal for a queued notification changes nothing; a settled one is skipped at send.
    if (pending.has(notificationId)) return;
    pending.set(notificationId, {
      notificationId,
      invoice,
      failedAttempts: 0,
      dueAt: Date.now() + input.batchWindowMs,
    });
    arrived = true;
  });

  const { attemptNotificationBatch } = proxyActivities<CollectActivities>({
    startToCloseTimeout: input.requestTimeoutMs + 15_000,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });

  for (let batches = 0; ; ) {
    if (pending.size === 0) break;
    const earliest = Math.min(...[...pending.values()].map((entry) => entry.dueAt));
    if (earliest > Date.now()) {
      // A new arrival may be due earlier than the wait in progress: look again when one comes.
      arrived = false;
      await condition(() => arrived, earliest - Date.now());
      continue;
    }

    const batch = dueBatch(pending, Date.now() + input.batchWindowMs, input.batchSize);
    const outcomes = await attemptNotificationBatch({
      merchantMin: input.merchantMin,
      batchId: `nb_${uuid4()}`,
      items: batch.map((entry) => ({
        notificationId: entry.notificationId,
        attempt: entry.failedAttempts + 1,
      })),
      requestTimeoutMs: input.requestTimeoutMs,
    });

    const retries: { notificationId: string; nextAttemptAt: string }[] = [];
    const failed: string[] = [];
    for (const { notificationId, outcome, retryAfterMs, permanent } of outcomes) {
      const entry = pending.get(notificationId);
      if (!entry) continue;
      if (isFinalOutcome(outcome)) {
        pending.delete(notificationId);
        continue;
      }
      entry.failedAttempts += 1;
      // Refused by the outbound-URL policy: no later attempt can succeed (decision 0027), failed now.
      const wait = permanent
        ? undefined
        : delayBeforeNextAttempt(input.retryScheduleMs, entry.failedAttempts, retryAfterMs);
      if (wait === undefined) {
        pending.delete(notificationId);
        failed.push(notificationId);
      } else {
        entry.dueAt = Date.now() + wait;
        retries.push({ notificationId, nextAttemptAt: new Date(entry.dueAt).toISOString() });
      }
    }
    if (retries.length > 0 || failed.length > 0) await recordNotificationSchedule({ retries, failed });

    batches += 1;
    if (pending.size > 0 && (batches >= BATCHES_PER_RUN || workflowInfo().continueAsNewSuggested)) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof merchantNotifications>({ ...input, pending: [...pending.values()] });
    }
  }
  upsertSearchAttributes([{ key: BusinessStatus, value: 'idle' }]);
  await condition(allHandlersFinished);
}

/**
 * The notifications due by `until`, earliest first, at most `size`, and at most one per invoice
 * (the reply is per invoice, so two changes of one invoice never share a POST; the later waits).
 */
function dueBatch(
  pending: Map<string, PendingNotification>,
  until: number,
  size: number,
): PendingNotification[] {
  const invoices = new Set<string>();
  const batch: PendingNotification[] = [];
  for (const entry of [...pending.values()].sort((a, b) => a.dueAt - b.dueAt)) {
    if (entry.dueAt > until || batch.length >= size) break;
    if (invoices.has(entry.invoice)) continue;
    invoices.add(entry.invoice);
    batch.push(entry);
  }
  return batch;
}
