import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ApplicationFailure } from '@temporalio/activity';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type {
  CarrierSubmission as CarrierSubmissionInput,
  CarrierSubmitResult,
  ChatAppProvider,
  SmsCarrier,
} from '../../connectors/messaging/carriers.ts';
import type { Database } from '../../db/client.ts';
import { messagingMessages } from '../../db/schema/messaging.ts';
import type {
  DeliveryReceipt,
  MessageFinalStatus,
  MessageStatus,
} from '../../domain/messaging/delivery-receipt.ts';

/** No-op unless the process traces (platform/tracing.ts). */
const tracer = trace.getTracer('integration-platform-messaging');

export interface SmsActivityDeps {
  db: Database;
  carrier: SmsCarrier;
  chatApp: ChatAppProvider;
}

/** What the read model records of a submission the carrier accepted. */
export interface SubmissionRecord {
  messageId: string;
  carrierMessageId: string;
  /** A message sent in parts: each part's carrier id, in order (each part has its own receipt). */
  carrierPartIds?: string[] | undefined;
  /** The carrier's identity (SMSC and system id), which receipts are matched on with the id. */
  carrier: string;
  submittedAt: string;
}

/** The carrier's answer, and whether its bookkeeping is done (else recordCarrierSubmission does it). */
export type CarrierSubmission =
  | ({ outcome: 'submitted'; recorded: boolean } & Omit<SubmissionRecord, 'messageId'>)
  | Extract<CarrierSubmitResult, { outcome: 'rejected' }>;

/** A hand-over with its span (decision 0059): the channel and the outcome, never the number or the text. */
export function submitTraced(
  provider: SmsCarrier | ChatAppProvider,
  channel: 'sms' | 'chatapp',
  submission: CarrierSubmissionInput,
): Promise<CarrierSubmitResult> {
  return tracer.startActiveSpan(
    'carrier submit',
    { kind: SpanKind.CLIENT, attributes: { 'messaging.system': channel === 'sms' ? 'smpp' : 'chatapp' } },
    async (span) => {
      try {
        const answer = await provider.submit(submission);
        span.setAttribute('platform.carrier.outcome', answer.outcome);
        return answer;
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).name });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Activities of the message workflow (sms): carrier hand-over and read-model writes. */
export function createSmsActivities({ db, carrier, chatApp }: SmsActivityDeps) {
  // An attempt still running when the workflow gave up (SMS_SUBMIT_TIMEOUT) records the carrier id
  // (a receipt may follow) but does not turn the `failed` message back to `submitted`.
  async function recordSubmission(submitted: SubmissionRecord): Promise<void> {
    const at = new Date(submitted.submittedAt);
    await db
      .update(messagingMessages)
      .set({
        status: sql`case when ${messagingMessages.status} = 'sending' then 'submitted' else ${messagingMessages.status} end`,
        carrierMessageId: submitted.carrierMessageId,
        // The parts actually sent (the count the API answered, from the same splitting, unless a
        // 16-bit UDH reference needed one part more).
        ...(submitted.carrierPartIds
          ? { carrierPartIds: submitted.carrierPartIds, parts: submitted.carrierPartIds.length }
          : {}),
        carrier: submitted.carrier,
        submittedAt: at,
        updatedAt: new Date(),
      })
      .where(eq(messagingMessages.id, submitted.messageId));
  }

  async function recordRejection(messageId: string, error: string): Promise<void> {
    await db
      .update(messagingMessages)
      .set({ status: 'rejected', error, updatedAt: new Date() })
      .where(and(eq(messagingMessages.id, messageId), eq(messagingMessages.status, 'sending')));
  }

  return {
    async markMessageStatus(input: { messageId: string; status: MessageStatus }): Promise<void> {
      await db
        .update(messagingMessages)
        .set({ status: input.status, updatedAt: new Date() })
        .where(eq(messagingMessages.id, input.messageId));
    },

    /**
     * Hands the message to its carrier once. A retry after the carrier accepted and the read model was
     * written finds the carrier id recorded and does not submit again. When the read model cannot be
     * written after the carrier accepted (the database is away), the attempt still succeeds with
     * `recorded: false`: failing it would submit the message a second time on retry; the workflow has
     * the bookkeeping done by recordCarrierSubmission instead (decision 0004).
     */
    async submitToCarrier(input: {
      messageId: string;
      channel: 'sms' | 'chatapp';
      to: string;
      from: string;
      message: string;
      /** Marks the message `sending` first (from accepted or scheduled only): one activity less (decision 0035). */
      markSending?: boolean;
    }): Promise<CarrierSubmission> {
      if (input.markSending) {
        await db
          .update(messagingMessages)
          .set({ status: 'sending', updatedAt: new Date() })
          .where(
            and(
              eq(messagingMessages.id, input.messageId),
              inArray(messagingMessages.status, ['accepted', 'scheduled']),
            ),
          );
      }
      const [existing] = await db
        .select({
          carrierMessageId: messagingMessages.carrierMessageId,
          carrierPartIds: messagingMessages.carrierPartIds,
          carrier: messagingMessages.carrier,
        })
        .from(messagingMessages)
        .where(eq(messagingMessages.id, input.messageId));
      if (!existing)
        throw ApplicationFailure.nonRetryable(`message ${input.messageId} is not in the read model`);
      if (existing.carrierMessageId) {
        return {
          outcome: 'submitted',
          carrierMessageId: existing.carrierMessageId,
          ...(existing.carrierPartIds ? { carrierPartIds: existing.carrierPartIds } : {}),
          carrier: existing.carrier ?? '',
          submittedAt: new Date().toISOString(),
          recorded: true,
        };
      }

      const provider = input.channel === 'sms' ? carrier : chatApp;
      const result = await submitTraced(provider, input.channel, {
        messageId: input.messageId,
        to: input.to,
        from: input.from,
        message: input.message,
      });
      if (result.outcome === 'rejected') {
        await recordRejection(input.messageId, result.error);
        return result;
      }
      const submitted = {
        messageId: input.messageId,
        carrierMessageId: result.carrierMessageId,
        ...(result.carrierPartIds ? { carrierPartIds: result.carrierPartIds } : {}),
        carrier: result.carrier ?? provider.identity,
        submittedAt: new Date().toISOString(),
      };
      try {
        await recordSubmission(submitted);
        return { outcome: 'submitted', ...submitted, recorded: true };
      } catch {
        return { outcome: 'submitted', ...submitted, recorded: false };
      }
    },

    /** The bookkeeping of a submission the carrier accepted; idempotent, retried until it lands. */
    async recordCarrierSubmission(input: SubmissionRecord): Promise<void> {
      await recordSubmission(input);
    },

    /**
     * Workflows started before decision 0062 poll the chat-app provider with this activity. The
     * WhatsApp Cloud API has no status query: its status events arrive as webhooks and are signalled to
     * the workflow, so the poll ends at once, for good, and such a workflow waits for the signal.
     */
    async awaitChatAppReceipt(_input: { carrierMessageId: string }): Promise<DeliveryReceipt> {
      throw ApplicationFailure.nonRetryable(
        'the chat-app provider reports statuses by webhook (decision 0062)',
        'ChatAppStatusesByWebhook',
      );
    },

    /** Writes the final status; returns the ISO time recorded as done. */
    async recordMessageOutcome(input: {
      messageId: string;
      status: MessageFinalStatus;
      error?: string | undefined;
      doneAt?: string | undefined;
    }): Promise<string> {
      const [message] = await db
        .select({ submittedAt: messagingMessages.submittedAt })
        .from(messagingMessages)
        .where(eq(messagingMessages.id, input.messageId));
      // Carriers report the time to the minute (SMPP `done date`), so it can read earlier than our own
      // submission time; a message is never reported done before it was submitted.
      const reported = input.doneAt ? new Date(input.doneAt) : new Date();
      const submittedAt = message?.submittedAt;
      const doneAt = submittedAt && reported < submittedAt ? submittedAt : reported;
      await db
        .update(messagingMessages)
        .set({ status: input.status, error: input.error ?? null, doneAt, updatedAt: new Date() })
        .where(eq(messagingMessages.id, input.messageId));
      return doneAt.toISOString();
    },
  };
}
