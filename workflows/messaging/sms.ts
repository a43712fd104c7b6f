import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { MessagingActivities } from '../../activities/messaging/index.ts';
import {
  assemblePartReceipts,
  type DeliveryReceipt,
  type MessageFinalStatus,
} from '../../domain/messaging/delivery-receipt.ts';
import {
  deliveryReceiptSignal,
  type MessageDeliveryInput,
  messageWorkflowId,
} from '../../domain/messaging/processes.ts';
import { dataRefusalOf } from '../../domain/permanent-failures.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';
import { sendWebhook } from '../webhooks/send.ts';
import { noReceiptOutcome } from './no-receipt.ts';

const { markMessageStatus, recordMessageOutcome, recordCarrierSubmission } =
  proxyActivities<MessagingActivities>({
    startToCloseTimeout: '10 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  });

/**
 * The final status is a short write of our own database: a local activity, run inside the workflow
 * task that received the receipt, saves a task-queue hop and a workflow task per message. It is
 * retried by the worker (same policy); a worker killed after its write and before the workflow task
 * completed runs it again on the next worker, which writes the same status (decision 0035).
 */
const { recordMessageOutcome: recordMessageOutcomeLocally } = proxyLocalActivities<MessagingActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * Workflows started before decision 0035 replay their recorded steps (markMessageStatus as its own
 * activity, recordMessageOutcome as a normal activity); new ones take the shorter path.
 */
const FEWER_ROUND_TRIPS = 'sms-fewer-round-trips';

/**
 * Workflows started before decision 0062 poll the chat-app provider for the outcome (the activity now
 * ends at once and they wait for the signal); new ones wait for the status webhook's signal only.
 */
const CHATAPP_STATUS_WEBHOOK = 'chatapp-status-webhook';

/** Workflows started before SMS_SUBMIT_TIMEOUT existed carry no submitTimeoutMs. */
const DEFAULT_SUBMIT_TIMEOUT_MS = 60 * 60 * 1000;

type SubmitInput = Parameters<MessagingActivities['submitToCarrier']>[0];
type Submission = Awaited<ReturnType<MessagingActivities['submitToCarrier']>>;

/**
 * Hands the message to its carrier, retrying transient failures (no bind, throttling, timeouts) with
 * backoff until `timeoutMs` has passed since the first attempt; then the hand-over has failed, and the
 * message ends `failed` with the last reason instead of staying `sending`.
 */
async function submitWithinDeadline(
  input: SubmitInput,
  timeoutMs: number,
): Promise<Submission | { outcome: 'failed'; error: string }> {
  const { submitToCarrier } = proxyActivities<MessagingActivities>({
    startToCloseTimeout: '30 seconds',
    scheduleToCloseTimeout: timeoutMs,
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  try {
    return await submitToCarrier(input);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    return { outcome: 'failed', error: `carrier submission failed: ${failureReason(error)}` };
  }
}

/** The carrier's own words when the failure chain has them (the last attempt's error), else the first. */
function failureReason(error: ActivityFailure): string {
  let reason: string | undefined;
  for (let cause: Error | undefined = error.cause; cause; cause = (cause as { cause?: Error }).cause) {
    if (cause instanceof ApplicationFailure) return cause.message;
    reason ??= cause.message;
  }
  return reason ?? error.message;
}

/** Before decision 0062: the chat-app provider was polled, with backoff, until the deadline. */
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
    if (error instanceof ActivityFailure) return undefined; // deadline passed: no receipt
    throw error;
  }
}

/**
 * One SMS or chat-app message, from acceptance to its delivery report:
 * wait for the scheduled time → submit to the carrier → wait for the receipt → report to dlrUrl.
 */
export async function messageDelivery(input: MessageDeliveryInput): Promise<MessageFinalStatus> {
  let receipt: DeliveryReceipt | undefined;
  /** A message sent in parts: each part's first receipt, by the part's carrier id (decision 0055). */
  const partReceipts = new Map<string, DeliveryReceipt>();
  // The first receipt wins; a carrier that repeats a receipt changes nothing.
  setHandler(deliveryReceiptSignal, (incoming) => {
    if (!partReceipts.has(incoming.carrierMessageId)) partReceipts.set(incoming.carrierMessageId, incoming);
    receipt ??= incoming;
  });

  if (input.scheduled) {
    const wait = Date.parse(input.scheduled) - Date.now();
    if (wait > 0) await sleep(wait);
  }

  // One activity marks the message `sending` and hands it over (decision 0035).
  const shorter = patched(FEWER_ROUND_TRIPS);
  if (!shorter) await markMessageStatus({ messageId: input.messageId, status: 'sending' });
  const submission = await submitWithinDeadline(
    {
      messageId: input.messageId,
      channel: input.channel,
      to: input.to,
      from: input.from,
      message: input.message,
      ...(shorter ? { markSending: true } : {}),
    },
    input.submitTimeoutMs ?? DEFAULT_SUBMIT_TIMEOUT_MS,
  );

  let status: MessageFinalStatus;
  let error: string | undefined;
  let partIds: string[] | undefined;
  if (submission.outcome === 'rejected' || submission.outcome === 'failed') {
    status = submission.outcome;
    error = submission.error;
  } else {
    // The carrier has the message; its bookkeeping waits for the database if it was away (never a resubmit).
    if (!submission.recorded) {
      await recordCarrierSubmission({
        messageId: input.messageId,
        carrierMessageId: submission.carrierMessageId,
        ...(submission.carrierPartIds ? { carrierPartIds: submission.carrierPartIds } : {}),
        carrier: submission.carrier,
        submittedAt: submission.submittedAt,
      });
    }
    // Sent in parts: one receipt per part, the message's own assembled from them.
    partIds = submission.carrierPartIds;
    const messageReceipt = (): DeliveryReceipt | undefined =>
      partIds && partIds.length > 1 ? assemblePartReceipts(partIds, partReceipts) : receipt;
    upsertSearchAttributes([{ key: BusinessStatus, value: 'submitted' }]);
    // A chat-app message's status events arrive as the same signal as an SMS receipt (decision 0062).
    if (input.channel === 'chatapp' && !patched(CHATAPP_STATUS_WEBHOOK))
      // A status signalled while it polled is kept when the poll ends without one.
      receipt = (await pollChatAppReceipt(submission.carrierMessageId, input.receiptTimeoutMs)) ?? receipt;
    const arrived = await condition(() => messageReceipt() !== undefined, input.receiptTimeoutMs);
    receipt = messageReceipt();
    // No receipt in time: `unknown` (decision 0084, amended); `expired` in histories from before.
    ({ status, error } =
      arrived && receipt ? { status: receipt.status, error: receipt.errorCode } : noReceiptOutcome());
  }
  upsertSearchAttributes([{ key: BusinessStatus, value: status }]);
  const recordOutcome = shorter ? recordMessageOutcomeLocally : recordMessageOutcome;
  let doneAt: string;
  try {
    doneAt = await recordOutcome({ messageId: input.messageId, status, error, doneAt: receipt?.doneAt });
  } catch (failure) {
    // The carrier's words (its error code) are text the database refuses for good (issue 20): the
    // outcome is recorded with the refusal as its error, instead of being retried for ever.
    const refused = dataRefusalOf(failure);
    if (refused === undefined) throw failure;
    error = `the delivery receipt could not be recorded: ${refused}`;
    doneAt = await recordOutcome({ messageId: input.messageId, status, error });
  }

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
        parts: partIds && partIds.length > 1 ? partIds.length : input.parts,
        error: error ?? null,
        doneAt,
      },
    });
  }
  return status;
}
