import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { eq } from 'drizzle-orm';
import type { SmsCarrier } from '../../connectors/messaging/carriers.ts';
import type { Database } from '../../db/client.ts';
import { messagingMessages } from '../../db/schema/messaging.ts';
import { deliveryReceiptSignal, messageWorkflowId } from '../../domain/messaging/processes.ts';
import type { Logger } from '../logger.ts';

/** How long a receipt may wait for the carrier id of its message to be recorded (they can cross). */
const LOOKUP_PATIENCE_MS = 30_000;

/**
 * Delivery receipts arrive on the worker's SMPP session. Each is matched to its message by the
 * carrier's message id and signalled to the message workflow. A receipt can overtake the
 * submit_sm_resp bookkeeping, so an unknown carrier id is looked up again for a while.
 */
export function routeDeliveryReceipts(deps: {
  carrier: SmsCarrier;
  db: Database;
  client: Client;
  logger: Logger;
}): void {
  deps.carrier.onReceipt(async (receipt) => {
    const deadline = Date.now() + LOOKUP_PATIENCE_MS;
    for (let delay = 50; ; delay = Math.min(delay * 2, 2000)) {
      const [message] = await deps.db
        .select({ id: messagingMessages.id })
        .from(messagingMessages)
        .where(eq(messagingMessages.carrierMessageId, receipt.carrierMessageId))
        .limit(1);
      if (message) {
        const workflowId = messageWorkflowId(message.id);
        try {
          await deps.client.workflow.getHandle(workflowId).signal(deliveryReceiptSignal, receipt);
          deps.logger.info(
            { kind: 'receipt', workflowId, status: receipt.status },
            'delivery receipt routed',
          );
        } catch (error) {
          // A receipt for a finished workflow (e.g. after its receipt timeout) changes nothing.
          if (!(error instanceof WorkflowNotFoundError)) throw error;
          deps.logger.warn({ kind: 'receipt', workflowId }, 'receipt for a finished message ignored');
        }
        return;
      }
      if (Date.now() > deadline) {
        deps.logger.warn(
          { kind: 'receipt', carrierMessageId: receipt.carrierMessageId },
          'receipt for an unknown message',
        );
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  });
}
