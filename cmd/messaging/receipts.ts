import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { and, arrayContains, arrayOverlaps, desc, eq, inArray, or } from 'drizzle-orm';
import type { SmsCarrier } from '../../connectors/messaging/carriers.ts';
import type { Database } from '../../db/client.ts';
import { messagingMessages } from '../../db/schema/messaging.ts';
import type { DeliveryReceipt } from '../../domain/messaging/delivery-receipt.ts';
import {
  deliveryReceiptSignal,
  deliveryReceiptsSignal,
  MESSAGING_WORKFLOW_PREFIXES,
  messageWorkflowId,
} from '../../domain/messaging/processes.ts';
import type { Logger } from '../../platform/logger.ts';

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
  // A router of several carriers (decision 0079) says which one each receipt came from.
  const ofThisReceipt = (receipt: DeliveryReceipt, carrier: string) =>
    and(
      // A part of a message sent in parts carries its own id (decision 0055).
      or(
        eq(messagingMessages.carrierMessageId, receipt.carrierMessageId),
        arrayContains(messagingMessages.carrierPartIds, [receipt.carrierMessageId]),
      ),
      eq(messagingMessages.carrier, carrier),
    );

  /** Signals a matched receipt to the process following its message; a finished process ignores it. */
  const signalProcess = async (processId: string, receipts: DeliveryReceipt[]): Promise<void> => {
    const handle = deps.client.workflow.getHandle(processId);
    try {
      // A batch takes its receipts in one signal (decision 0074); a message's own workflow one by one.
      if (processId.startsWith(MESSAGING_WORKFLOW_PREFIXES.smsBatch))
        await handle.signal(deliveryReceiptsSignal, receipts);
      else for (const receipt of receipts) await handle.signal(deliveryReceiptSignal, receipt);
      logger.info(
        { kind: 'receipt', workflowId: processId, count: receipts.length },
        'delivery receipts routed',
      );
    } catch (error) {
      // A receipt for a finished workflow (e.g. after its receipt timeout) changes nothing.
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      logger.warn({ kind: 'receipt', workflowId: processId }, 'receipt for a finished message ignored');
    }
  };

  /**
   * The receipts that arrived while the previous burst was routed, matched in one query and signalled
   * one signal per batch (decision 0074). A receipt no waiting message matches yet goes the patient way.
   */
  const routeBurst = async (carrier: string, burst: Waiting[]): Promise<void> => {
    const ids = [...new Set(burst.map((entry) => entry.receipt.carrierMessageId))];
    const rows = await db
      .select({
        id: messagingMessages.id,
        processId: messagingMessages.processId,
        carrierMessageId: messagingMessages.carrierMessageId,
        carrierPartIds: messagingMessages.carrierPartIds,
        submittedAt: messagingMessages.submittedAt,
      })
      .from(messagingMessages)
      .where(
        and(
          or(
            inArray(messagingMessages.carrierMessageId, ids),
            arrayOverlaps(messagingMessages.carrierPartIds, ids),
          ),
          eq(messagingMessages.carrier, carrier),
          eq(messagingMessages.status, 'submitted'),
        ),
      );
    // The newest submission first: a carrier that reuses ids means the message waiting now.
    rows.sort((a, b) => (b.submittedAt?.getTime() ?? 0) - (a.submittedAt?.getTime() ?? 0));
    const byProcess = new Map<string, Waiting[]>();
    const unmatched: Waiting[] = [];
    for (const entry of burst) {
      const id = entry.receipt.carrierMessageId;
      const row = rows.find((r) => r.carrierMessageId === id || r.carrierPartIds?.includes(id));
      if (!row) {
        unmatched.push(entry);
        continue;
      }
      const processId = row.processId ?? messageWorkflowId(row.id);
      byProcess.set(processId, [...(byProcess.get(processId) ?? []), entry]);
    }
    // Off the burst: a receipt waiting for its submission to be recorded holds up no other.
    for (const entry of unmatched)
      routePatiently(entry.receipt, carrier).then(
        () => settle([entry]),
        (error: unknown) => settle([entry], error),
      );
    await Promise.all(
      [...byProcess].map(([processId, entries]) =>
        signalProcess(
          processId,
          entries.map((entry) => entry.receipt),
        ).then(
          () => settle(entries),
          (error: unknown) => settle(entries, error),
        ),
      ),
    );
  };

  const queue: Waiting[] = [];
  let routing = false;
  const drain = async () => {
    routing = true;
    try {
      while (queue.length > 0) {
        const burst = queue.splice(0, BURST_LIMIT);
        const byCarrier = new Map<string, Waiting[]>();
        for (const entry of burst)
          byCarrier.set(entry.carrier, [...(byCarrier.get(entry.carrier) ?? []), entry]);
        for (const [carrier, entries] of byCarrier)
          await routeBurst(carrier, entries).catch((error: unknown) => settle(entries, error));
      }
    } finally {
      routing = false;
    }
  };

  deps.carrier.onReceipt(
    (receipt, carrier) =>
      new Promise<void>((resolve, reject) => {
        queue.push({ receipt, carrier: carrier ?? deps.carrier.identity, resolve, reject });
        if (!routing) void drain();
      }),
  );

  /** A receipt whose message is not (yet) waiting: looked up again while its submission may still be recording. */
  async function routePatiently(receipt: DeliveryReceipt, carrier: string): Promise<void> {
    const deadline = Date.now() + (deps.lookupPatienceMs ?? LOOKUP_PATIENCE_MS);
    for (let delay = 50; ; delay = Math.min(delay * 2, 2000)) {
      const [waiting] = await db
        .select({ id: messagingMessages.id, processId: messagingMessages.processId })
        .from(messagingMessages)
        .where(and(ofThisReceipt(receipt, carrier), eq(messagingMessages.status, 'submitted')))
        .orderBy(desc(messagingMessages.submittedAt))
        .limit(1);
      if (waiting) {
        await signalProcess(waiting.processId ?? messageWorkflowId(waiting.id), [receipt]);
        return;
      }

      const [finished] = await db
        .select({ id: messagingMessages.id, status: messagingMessages.status })
        .from(messagingMessages)
        .where(ofThisReceipt(receipt, carrier))
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
  }
}

/** A receipt waiting to be routed; the SMSC has its answer when it is settled. */
interface Waiting {
  receipt: DeliveryReceipt;
  /** The identity of the carrier it came from. */
  carrier: string;
  resolve(): void;
  reject(error: unknown): void;
}

/** Receipts matched by one query at most. */
const BURST_LIMIT = 500;

function settle(entries: Waiting[], error?: unknown): void {
  for (const entry of entries) {
    if (error === undefined) entry.resolve();
    else entry.reject(error);
  }
}
