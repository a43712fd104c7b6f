import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { and, arrayContains, desc, eq, or } from 'drizzle-orm';
import type { SmsCarrier } from '../../connectors/messaging/carriers.ts';
import type { Database } from '../../db/client.ts';
import { messagingMessages } from '../../db/schema/messaging.ts';
import type { DeliveryReceipt } from '../../domain/messaging/delivery-receipt.ts';
import { deliveryReceiptSignal, messageWorkflowId } from '../../domain/messaging/processes.ts';
import type { Logger } from '../logger.ts';

/** How long a receipt may wait for the carrier id of its message to be recorded (they can cross). */
const LOOKUP_PATIENCE_MS = 30_000;

/**
 * Delivery receipts arrive on the worker's SMPP session. Each is matched to the message waiting for it
 * and signalled to its workflow. A carrier's message ids are unique only per carrier and not for ever
 * (an SMSC that restarts its counter hands them out again), so a receipt matches on the carrier id AND
 * the carrier the message was submitted to (SmsCarrier.identity), and among those only a message still
 * waiting for its receipt (`submitted`), the newest submission first. A receipt whose id belongs only to
 * finished messages is logged and ignored. A receipt can overtake the submit_sm_resp bookkeeping, so
 * while no waiting message matches and a submission may still be recording its id, it is looked up
 * again for a while.
 */
export function routeDeliveryReceipts(deps: {
  carrier: SmsCarrier;
  db: Database;
  client: Client;
  logger: Logger;
  /** How long to look again for a message not (yet) recorded; 30 s unless given (tests). */
  lookupPatienceMs?: number;
}): void {
  const { db, logger } = deps;
  const carrier = deps.carrier.identity;
  const ofThisReceipt = (receipt: DeliveryReceipt) =>
    and(
      // A part of a message sent in parts carries its own id (decision 0055).
      or(
        eq(messagingMessages.carrierMessageId, receipt.carrierMessageId),
        arrayContains(messagingMessages.carrierPartIds, [receipt.carrierMessageId]),
      ),
      eq(messagingMessages.carrier, carrier),
    );

  deps.carrier.onReceipt(async (receipt) => {
    const deadline = Date.now() + (deps.lookupPatienceMs ?? LOOKUP_PATIENCE_MS);
    for (let delay = 50; ; delay = Math.min(delay * 2, 2000)) {
      const [waiting] = await db
        .select({ id: messagingMessages.id })
        .from(messagingMessages)
        .where(and(ofThisReceipt(receipt), eq(messagingMessages.status, 'submitted')))
        .orderBy(desc(messagingMessages.submittedAt))
        .limit(1);
      if (waiting) {
        const workflowId = messageWorkflowId(waiting.id);
        try {
          await deps.client.workflow.getHandle(workflowId).signal(deliveryReceiptSignal, receipt);
          logger.info({ kind: 'receipt', workflowId, status: receipt.status }, 'delivery receipt routed');
        } catch (error) {
          // A receipt for a finished workflow (e.g. after its receipt timeout) changes nothing.
          if (!(error instanceof WorkflowNotFoundError)) throw error;
          logger.warn({ kind: 'receipt', workflowId }, 'receipt for a finished message ignored');
        }
        return;
      }

      const [finished] = await db
        .select({ id: messagingMessages.id, status: messagingMessages.status })
        .from(messagingMessages)
        .where(ofThisReceipt(receipt))
        .orderBy(desc(messagingMessages.submittedAt))
        .limit(1);
      // Recorded between the two reads (the bench saw it under load): it is waiting, look again.
      if (finished?.status === 'submitted') continue;
      // Only a message being handed over now (`sending`) can still turn out to own this id.
      const [inFlight] = finished
        ? await db
            .select({ id: messagingMessages.id })
            .from(messagingMessages)
            .where(and(eq(messagingMessages.channel, 'sms'), eq(messagingMessages.status, 'sending')))
            .limit(1)
        : [];
      if ((finished && !inFlight) || Date.now() > deadline) {
        logger.warn(
          {
            kind: 'receipt',
            carrier,
            carrierMessageId: receipt.carrierMessageId,
            receiptStatus: receipt.status,
            ...(finished ? { finishedMessageId: finished.id, finishedStatus: finished.status } : {}),
          },
          finished
            ? 'receipt matches only a finished message; ignored'
            : 'receipt for an unknown message; ignored',
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  });
}
