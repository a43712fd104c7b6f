import {
  ActivityFailure,
  condition,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { MessagingActivities } from '../../activities/messaging/index.ts';
import type { DeliveryReceipt, MessageFinalStatus } from '../../domain/messaging/delivery-receipt.ts';
import {
  deliveryReceiptSignal,
  type MessageDeliveryInput,
  messageWorkflowId,
} from '../../domain/messaging/processes.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';
import { sendWebhook } from '../webhooks/send.ts';

const { markMessageStatus, recordMessageOutcome } = proxyActivities<MessagingActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});
const { submitToCarrier } = proxyActivities<MessagingActivities>({
  startToCloseTimeout: '30 seconds',
  retry: {
    initialInterval: '2 seconds',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    maximumAttempts: 10,
  },
});

/** The chat-app provider has no push channel to us: poll it, with backoff, until the deadline. */
async function pollChatAppReceipt(
  carrierMessageId: string,
  deadlineMs: number,
): Promise<DeliveryReceipt | undefined> {
  const { awaitChatAppReceipt } = proxyActivities<MessagingActivities>({
    startToCloseTimeout: '10 seconds',
    scheduleToCloseTimeout: deadlineMs,
    retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  try {
    return await awaitChatAppReceipt({ carrierMessageId });
  } catch (error) {
    if (error instanceof ActivityFailure) return undefined; // deadline passed: reported as expired
    throw error;
  }
}

/**
 * One SMS or chat-app message, from acceptance to its delivery report:
 * wait for the scheduled time → submit to the carrier → wait for the receipt → report to dlrUrl.
 */
export async function messageDelivery(input: MessageDeliveryInput): Promise<MessageFinalStatus> {
  let receipt: DeliveryReceipt | undefined;
  // The first receipt wins; a carrier that repeats a receipt changes nothing.
  setHandler(deliveryReceiptSignal, (incoming) => {
    receipt ??= incoming;
  });

  if (input.scheduled) {
    const wait = Date.parse(input.scheduled) - Date.now();
    if (wait > 0) await sleep(wait);
  }

  await markMessageStatus({ messageId: input.messageId, status: 'sending' });
  const submission = await submitToCarrier({
    messageId: input.messageId,
    channel: input.channel,
    to: input.to,
    from: input.from,
    message: input.message,
  });

  let status: MessageFinalStatus;
  let error: string | undefined;
  if (submission.outcome === 'rejected') {
    status = 'rejected';
    error = submission.error;
  } else {
    upsertSearchAttributes([{ key: BusinessStatus, value: 'submitted' }]);
    if (input.channel === 'chatapp')
      receipt = await pollChatAppReceipt(submission.carrierMessageId, input.receiptTimeoutMs);
    const arrived = await condition(() => receipt !== undefined, input.receiptTimeoutMs);
    status = arrived && receipt ? receipt.status : 'expired';
    error = receipt?.errorCode;
  }
  upsertSearchAttributes([{ key: BusinessStatus, value: status }]);
  const doneAt = await recordMessageOutcome({
    messageId: input.messageId,
    status,
    error,
    doneAt: receipt?.doneAt,
  });

  if (input.dlrUrl) {
    await sendWebhook({
      service: 'messaging',
      ownerId: input.accountId,
      url: input.dlrUrl,
      eventType: 'message.status',
      eventId: `${messageWorkflowId(input.messageId)}.${status}`,
      subjectId: input.messageId,
      payload: {
        id: input.messageId,
        channel: input.channel,
        status,
        to: input.to,
        from: input.from,
        parts: input.parts,
        error: error ?? null,
        doneAt,
      },
    });
  }
  return status;
}
