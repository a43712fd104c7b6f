import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { asc, eq, inArray, lte, sql } from 'drizzle-orm';
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
  /** Look now for due entries. */
  wake(): void;
  /**
   * Hands over a message this process just accepted (its entry leased to this process at insert): the
   * start runs in the request's trace, off its answer; a failure leaves the entry to the polls.
   */
  handOver(message: typeof messagingMessages.$inferSelect, text: string): void;
  stop(): Promise<void>;
}

const running = new WeakMap<Database, MessageHandover>();

/** The active trace context as W3C headers, or null when tracing is off (nothing to carry). */
export function activeTraceContext(): Record<string, string> | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length > 0 ? carrier : null;
}

/** The hand-over running in this process on `db`, if any (otherwise another process's poll takes its entries). */
export function messageHandoverOf(db: Database): MessageHandover | undefined {
  return running.get(db);
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
  const direct = new Set<Promise<void>>();

  const handover: MessageHandover = {
    wake,
    handOver(message, text) {
      const task: Promise<void> = startMessageWorkflow(deps, deliveryInputOf(deps.config, message, text))
        .then(async () => {
          await deps.db.delete(messagingOutbox).where(eq(messagingOutbox.messageId, message.id));
        })
        .catch((error: unknown) => {
          deps.logger.warn(
            { err: error, messageId: message.id },
            'message not handed over to its workflow; retried when its lease passes',
          );
        })
        .finally(() => direct.delete(task));
      direct.add(task);
    },
    async stop() {
      stopped = true;
      clearInterval(poll);
      running.delete(deps.db);
      await Promise.all([round, ...direct]);
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
        await context.with(accepted, () => startMessageWorkflow(deps, deliveryInputOf(config, row, message)));
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

/** The workflow's input: the row, and the text as given (the row keeps a flagged one masked). */
function deliveryInputOf(
  config: UseCaseDeps['config'],
  row: typeof messagingMessages.$inferSelect,
  text: string,
): MessageDeliveryInput {
  return {
    messageId: row.id,
    accountId: row.accountId,
    channel: row.channel,
    to: row.to,
    from: row.from,
    message: text,
    parts: row.parts,
    receiptTimeoutMs: config.SMS_RECEIPT_TIMEOUT,
    submitTimeoutMs: config.SMS_SUBMIT_TIMEOUT,
    ...(row.scheduled ? { scheduled: row.scheduled.toISOString() } : {}),
    ...(row.dlrUrl ? { dlrUrl: row.dlrUrl } : {}),
  };
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
