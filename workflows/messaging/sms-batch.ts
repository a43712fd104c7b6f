import {
  condition,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { MessagingActivities } from '../../activities/messaging/index.ts';
import type { MessageOutcome } from '../../activities/messaging/sms-batch.ts';
import {
  assemblePartReceipts,
  type DeliveryReceipt,
  type MessageFinalStatus,
} from '../../domain/messaging/delivery-receipt.ts';
import { IN_DOUBT_ERROR } from '../../domain/messaging/in-doubt.ts';
import {
  type BatchedMessage,
  deliveryReceiptSignal,
  deliveryReceiptsSignal,
  type MessageBatchInput,
  messageWorkflowId,
} from '../../domain/messaging/processes.ts';
import type { WebhookRequest } from '../../domain/webhooks/processes.ts';
import { sendWebhooks } from '../webhooks/send.ts';
import { noReceiptOutcome } from './no-receipt.ts';

const { submitMessageBatch } = proxyActivities<MessagingActivities>({
  // A batch goes out over the bind's window; a worker that dies mid-batch is noticed by its silence.
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

const { recordCarrierSubmissions } = proxyActivities<MessagingActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** Final statuses are short writes of our own database: a local activity inside the workflow task (as decision 0035). */
const { recordMessageOutcomes } = proxyLocalActivities<MessagingActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** Pauses between hand-overs of the messages the carrier did not take (no bind, throttled). */
const FIRST_RETRY_MS = 2_000;
const LONGEST_RETRY_MS = 60_000;

interface Followed {
  message: BatchedMessage;
  /** The carrier's ids: the message's, or each part's when sent in parts. */
  carrierIds?: string[];
  /** Each part's first receipt, by its carrier id. */
  receipts: Map<string, DeliveryReceipt>;
}

/**
 * Up to MESSAGING_BATCH_SIZE SMS from their hand-over to their delivery reports (decision 0074):
 * hand them all to the carrier over the bind's window → wait for their receipts, which the router
 * signals in bursts → write each burst's final statuses in one statement and report them to their
 * dlrUrls together → at the receipt timeout, the rest are `unknown` (no receipt). Each message's row
 * names this workflow (process_id), so a message still leads to its process in the Web UI.
 */
export async function messageBatch(input: MessageBatchInput): Promise<Record<MessageFinalStatus, number>> {
  const processId = workflowInfo().workflowId;
  const followed = new Map<string, Followed>(
    input.messages.map((message) => [message.messageId, { message, receipts: new Map() }]),
  );
  /** Which message a carrier id (of a message or of a part) belongs to. */
  const byCarrierId = new Map<string, Followed>();
  /** Receipts that arrived before the hand-over's answer named their message (they can cross). */
  const early: DeliveryReceipt[] = [];
  const counts: Record<MessageFinalStatus, number> = {
    delivered: 0,
    undeliverable: 0,
    rejected: 0,
    failed: 0,
    expired: 0,
    unknown: 0,
  };
  let ready: MessageOutcome[] = [];

  const take = (receipt: DeliveryReceipt) => {
    const message = byCarrierId.get(receipt.carrierMessageId);
    if (!message) {
      early.push(receipt);
      return;
    }
    // The first receipt of each part wins; a carrier that repeats a receipt changes nothing.
    if (message.receipts.has(receipt.carrierMessageId) || !message.carrierIds) return;
    message.receipts.set(receipt.carrierMessageId, receipt);
    const ids = message.carrierIds;
    const complete =
      ids.length > 1 ? assemblePartReceipts(ids, message.receipts) : message.receipts.get(ids[0]!);
    if (!complete) return;
    ready.push({
      messageId: message.message.messageId,
      status: complete.status,
      error: complete.errorCode,
      doneAt: complete.doneAt,
    });
  };
  const takeReady = () => {
    const taking = ready;
    ready = [];
    return taking;
  };
  setHandler(deliveryReceiptsSignal, (receipts) => {
    for (const receipt of receipts) take(receipt);
  });
  setHandler(deliveryReceiptSignal, take);

  const deadline = Date.now() + input.submitTimeoutMs;
  let pending = input.messages;
  for (let pause = FIRST_RETRY_MS; pending.length > 0; pause = Math.min(pause * 2, LONGEST_RETRY_MS)) {
    const handed = await submitMessageBatch({
      processId,
      messages: pending.map(({ messageId, to, from, message }) => ({ messageId, to, from, message })),
    });
    const unrecorded = handed.submitted.filter((submission) => !submission.recorded);
    if (unrecorded.length > 0)
      await recordCarrierSubmissions({
        submissions: unrecorded.map(({ recorded: _, ...submission }) => submission),
      });
    for (const submission of handed.submitted) {
      const message = followed.get(submission.messageId)!;
      message.carrierIds = submission.carrierPartIds ?? [submission.carrierMessageId];
      for (const id of message.carrierIds) byCarrierId.set(id, message);
    }
    for (const refused of handed.rejected)
      ready.push({ messageId: refused.messageId, status: 'rejected', error: refused.error });
    // Sent before a crash, answer lost, not sent again (decision 0084): the carrier may have it or not.
    for (const messageId of handed.inDoubt ?? [])
      ready.push({ messageId, status: 'unknown', error: IN_DOUBT_ERROR });
    // Taken by another batch (a repeated hand-over): that batch follows and reports them.
    for (const id of handed.elsewhere) followed.delete(id);
    for (const receipt of early.splice(0)) take(receipt);

    const unsent = new Set(handed.unsent.map((entry) => entry.messageId));
    pending = input.messages.filter((message) => unsent.has(message.messageId));
    if (pending.length > 0 && Date.now() + pause >= deadline) {
      const reason = handed.unsent[0]?.error ?? 'no answer';
      for (const message of pending)
        ready.push({
          messageId: message.messageId,
          status: 'failed',
          error: `carrier submission failed: ${reason}`,
        });
      pending = [];
    }
    if (pending.length > 0) {
      await report(takeReady(), counts, followed);
      await sleep(pause);
    }
  }

  const receiptDeadline = Date.now() + input.receiptTimeoutMs;
  while (followed.size > 0) {
    const left = receiptDeadline - Date.now();
    if (ready.length === 0 && !(left > 0 && (await condition(() => ready.length > 0, left)))) break;
    await report(takeReady(), counts, followed);
  }
  // Whatever is still waiting when the receipt timeout passes has no receipt: `unknown` (decision
  // 0084, amended; `expired` in histories from before).
  if (followed.size > 0) {
    const outcome = noReceiptOutcome();
    const unanswered = [...followed.values()].map(
      ({ message }): MessageOutcome => ({ messageId: message.messageId, ...outcome }),
    );
    await report(unanswered, counts, followed);
  }
  return counts;
}

/** Records a burst of final statuses in one statement and reports them to their dlrUrls together. */
async function report(
  outcomes: MessageOutcome[],
  counts: Record<MessageFinalStatus, number>,
  followed: Map<string, Followed>,
): Promise<void> {
  if (outcomes.length === 0) return;
  const doneAt = await recordMessageOutcomes({ outcomes });
  const reports: WebhookRequest[] = [];
  for (const outcome of outcomes) {
    const entry = followed.get(outcome.messageId);
    if (!entry) continue;
    followed.delete(outcome.messageId);
    counts[outcome.status] += 1;
    const { message } = entry;
    if (!message.dlrUrl) continue;
    const parts = entry.carrierIds && entry.carrierIds.length > 1 ? entry.carrierIds.length : message.parts;
    reports.push({
      service: 'messaging',
      ownerId: message.accountId,
      url: message.dlrUrl,
      eventType: 'message.status',
      // The same event id as a message with a workflow of its own: one report per message and status.
      eventId: `${messageWorkflowId(message.messageId)}.${outcome.status}`,
      subjectId: message.messageId,
      payload: {
        id: message.messageId,
        channel: 'sms',
        status: outcome.status,
        to: message.to,
        from: message.from,
        parts,
        error: outcome.error ?? null,
        doneAt: doneAt[message.messageId] ?? null,
      },
    });
  }
  await sendWebhooks(reports);
}
