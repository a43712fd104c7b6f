import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { asc, inArray, lte, sql } from 'drizzle-orm';
import { openCodeMessage } from '../../credentials/messaging/code-messages.ts';
import type { Database } from '../../db/client.ts';
import { messagingMessages, messagingOutbox } from '../../db/schema/messaging.ts';
import { type MessageDeliveryInput, messageWorkflowId } from '../../domain/messaging/processes.ts';
import { OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import type { messageDelivery } from '../../workflows/messaging/sms.ts';
import type { UseCaseDeps } from '../shared/deps.ts';

/**
 * The hand-over of accepted messages to their workflows (decision 0066). `POST /sms` and `POST /chatapp`
 * write the message and its outbox entry in one transaction and answer; this use case starts the
 * workflow `sms-<id>` of each entry and deletes the entry. Each API process runs one hand-over: woken by
 * its own accepts, and every second for entries whose lease has passed (a process that crashed after
 * accepting, or whose starts failed). Entries are taken with `FOR UPDATE SKIP LOCKED` and leased, so
 * processes share them without waiting on each other; a start is idempotent by workflow id and refuses
 * a closed workflow of the same id, so an entry handed over twice never sends twice.
 */

/** Entries taken per round: one claim, one read, one delete for up to this many starts. */
const BATCH_SIZE = 64;
/** Workflow starts in flight per round. */
const CONCURRENT_STARTS = 16;
/** How often an idle hand-over looks for entries left by others. */
const POLL_MS = 1_000;

export interface MessageHandover {
  /** Look now (an accept just committed). */
  wake(): void;
  stop(): Promise<void>;
}

const running = new WeakMap<Database, MessageHandover>();

/** The active trace context as W3C headers, or null when tracing is off (nothing to carry). */
export function activeTraceContext(): Record<string, string> | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length > 0 ? carrier : null;
}

/** Wakes the hand-over running in this process on `db`, if any (otherwise another process's poll takes it). */
export function wakeMessageHandover(db: Database): void {
  running.get(db)?.wake();
}

/** Starts this process's hand-over; stop() waits for the round in progress. */
export function startMessageHandover(deps: UseCaseDeps): MessageHandover {
  let wanted = false;
  let stopped = false;
  let round: Promise<void> | undefined;

  const drain = async () => {
    while (!stopped) {
      wanted = false;
      const taken = await handOverDueMessages(deps);
      if (taken < BATCH_SIZE && !wanted) return;
    }
  };
  const wake = () => {
    wanted = true;
    if (round || stopped) return;
    // A round serves many requests: it runs in no request's trace; each start joins its own (below).
    round = context
      .with(ROOT_CONTEXT, drain)
      .catch((error: unknown) => {
        // The database or Temporal is unavailable: the entries stay, the next poll tries again.
        deps.logger.warn({ err: error }, 'message hand-over failed; retrying');
      })
      .finally(() => {
        round = undefined;
        if (wanted && !stopped) setImmediate(wake);
      });
  };
  const poll = setInterval(wake, POLL_MS);
  poll.unref();

  const handover: MessageHandover = {
    wake,
    async stop() {
      stopped = true;
      clearInterval(poll);
      running.delete(deps.db);
      await round;
    },
  };
  running.set(deps.db, handover);
  wake();
  return handover;
}

/** One round: takes up to BATCH_SIZE due entries, starts their workflows, deletes the started ones. */
export async function handOverDueMessages(deps: UseCaseDeps): Promise<number> {
  const { db, config } = deps;
  const due = db
    .select({ messageId: messagingOutbox.messageId })
    .from(messagingOutbox)
    .where(lte(messagingOutbox.leaseUntil, sql`now()`))
    .orderBy(asc(messagingOutbox.leaseUntil))
    .limit(BATCH_SIZE)
    .for('update', { skipLocked: true });
  const taken = await db
    .update(messagingOutbox)
    .set({
      leaseUntil: sql`now() + ${config.MESSAGING_HANDOVER_LEASE} * interval '1 millisecond'`,
      attempts: sql`${messagingOutbox.attempts} + 1`,
    })
    .where(inArray(messagingOutbox.messageId, due))
    .returning();
  if (taken.length === 0) return 0;

  const messages = new Map(
    (
      await db
        .select()
        .from(messagingMessages)
        .where(
          inArray(
            messagingMessages.id,
            taken.map((entry) => entry.messageId),
          ),
        )
    ).map((row) => [row.id, row]),
  );
  const started: string[] = [];
  const queue = [...taken];
  const startNext = async (): Promise<void> => {
    for (let entry = queue.shift(); entry; entry = queue.shift()) {
      const row = messages.get(entry.messageId);
      if (!row) continue; // deleted with its message (cascade)
      try {
        const message = entry.sealedText ? openCodeMessage(config, row.id, entry.sealedText) : row.message;
        const accepted = propagation.extract(ROOT_CONTEXT, entry.traceContext ?? {});
        await context.with(accepted, () =>
          startMessageWorkflow(deps, {
            messageId: row.id,
            accountId: row.accountId,
            channel: row.channel,
            to: row.to,
            from: row.from,
            message,
            parts: row.parts,
            receiptTimeoutMs: config.SMS_RECEIPT_TIMEOUT,
            submitTimeoutMs: config.SMS_SUBMIT_TIMEOUT,
            ...(row.scheduled ? { scheduled: row.scheduled.toISOString() } : {}),
            ...(row.dlrUrl ? { dlrUrl: row.dlrUrl } : {}),
          }),
        );
        started.push(row.id);
      } catch (error) {
        deps.logger.warn(
          { err: error, messageId: row.id, attempts: entry.attempts },
          'message not handed over to its workflow; retried when its lease passes',
        );
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_STARTS, taken.length) }, startNext));
  if (started.length > 0) await db.delete(messagingOutbox).where(inArray(messagingOutbox.messageId, started));
  return taken.length;
}

async function startMessageWorkflow(deps: UseCaseDeps, input: MessageDeliveryInput): Promise<void> {
  try {
    await deps.temporal.workflow.start<typeof messageDelivery>('messageDelivery', {
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      workflowId: messageWorkflowId(input.messageId),
      // A closed workflow of this id means the message was handed over already: never a second run.
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [input],
      typedSearchAttributes: [
        { key: PlatformService, value: 'messaging' },
        { key: OwnerId, value: input.accountId },
      ],
      staticSummary: `${input.channel.toUpperCase()} to ${input.to} (${input.parts} part${input.parts === 1 ? '' : 's'})`,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
