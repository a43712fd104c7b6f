import { ApplicationFailure } from '@temporalio/activity';
import { and, eq, sql } from 'drizzle-orm';
import type {
  CarrierSubmitResult,
  ChatAppProvider,
  SmsCarrier,
} from '../../connectors/messaging/carriers.ts';
import type { Database } from '../../db/client.ts';
import { messagingMessages } from '../../db/schema/messaging.ts';
import type { MessageFinalStatus, MessageStatus } from '../../domain/messaging/delivery-receipt.ts';

export interface SmsActivityDeps {
  db: Database;
  carrier: SmsCarrier;
  chatApp: ChatAppProvider;
}

/** Activities of the message workflow (sms): carrier hand-over and read-model writes. */
export function createSmsActivities({ db, carrier, chatApp }: SmsActivityDeps) {
  return {
    async markMessageStatus(input: { messageId: string; status: MessageStatus }): Promise<void> {
      await db
        .update(messagingMessages)
        .set({ status: input.status, updatedAt: new Date() })
        .where(eq(messagingMessages.id, input.messageId));
    },

    /**
     * Hands the message to its carrier once. A retry after the carrier accepted (but before the
     * read model was written) finds the carrier id already recorded and does not submit again.
     */
    async submitToCarrier(input: {
      messageId: string;
      channel: 'sms' | 'chatapp';
      to: string;
      from: string;
      message: string;
    }): Promise<CarrierSubmitResult> {
      const [existing] = await db
        .select({ carrierMessageId: messagingMessages.carrierMessageId })
        .from(messagingMessages)
        .where(eq(messagingMessages.id, input.messageId));
      if (!existing)
        throw ApplicationFailure.nonRetryable(`message ${input.messageId} is not in the read model`);
      if (existing.carrierMessageId)
        return { outcome: 'submitted', carrierMessageId: existing.carrierMessageId };

      const provider = input.channel === 'sms' ? carrier : chatApp;
      const result = await provider.submit(input);
      const now = new Date();
      // An attempt still running when the workflow gave up (SMS_SUBMIT_TIMEOUT) records the carrier id
      // (a receipt may follow) but does not turn the `failed` message back to `submitted`.
      const stillSending = and(
        eq(messagingMessages.id, input.messageId),
        eq(messagingMessages.status, 'sending'),
      );
      if (result.outcome === 'submitted') {
        await db
          .update(messagingMessages)
          .set({
            status: sql`case when ${messagingMessages.status} = 'sending' then 'submitted' else ${messagingMessages.status} end`,
            carrierMessageId: result.carrierMessageId,
            carrier: provider.identity,
            submittedAt: now,
            updatedAt: now,
          })
          .where(eq(messagingMessages.id, input.messageId));
      } else {
        await db
          .update(messagingMessages)
          .set({ status: 'rejected', error: result.error, updatedAt: now })
          .where(stillSending);
      }
      return result;
    },

    /**
     * Polls the chat-app provider for the outcome; throws (and so is retried with backoff) while the
     * message is in flight. The workflow bounds the whole wait with scheduleToCloseTimeout.
     */
    async awaitChatAppReceipt(input: { carrierMessageId: string }) {
      const receipt = await chatApp.receipt(input.carrierMessageId);
      if (!receipt) throw ApplicationFailure.retryable('chat-app message still in flight', 'InFlight');
      return receipt;
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
