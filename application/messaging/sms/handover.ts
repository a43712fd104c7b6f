import { createHash } from 'node:crypto';
import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { asc, inArray, lte, sql } from 'drizzle-orm';
import { openCodeMessage } from '../../../credentials/messaging/code-messages.ts';
import type { Database } from '../../../db/client.ts';
import { messagingMessages, messagingOutbox } from '../../../db/schema/messaging.ts';
import {
  type MessageBatchInput,
  type MessageDeliveryInput,
  messageBatchWorkflowId,
  messageWorkflowId,
} from '../../../domain/messaging/processes.ts';
import { OwnerId, PlatformService } from '../../../domain/search-attributes.ts';
import { mapConcurrently } from '../../../platform/concurrency.ts';
import type { messageDelivery } from '../../../workflows/messaging/sms.ts';
import type { messageBatch } from '../../../workflows/messaging/sms-batch.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';

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

export interface SmsHandover {
  /** Look now for due entries. */
  wake(): void;
  /**
   * Hands over a message this process just accepted (its entry leased to this process at insert): the
   * start runs in the request's trace, off its answer; a failure leaves the entry to the polls.
   */
  handOver(message: typeof messagingMessages.$inferSelect, text: string): void;
  stop(): Promise<void>;
}

const running = new WeakMap<Database, SmsHandover>();

/** The active trace context as W3C headers, or null when tracing is off (nothing to carry). */
export function activeTraceContext(): Record<string, string> | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length > 0 ? carrier : null;
}

/** The hand-over running in this process on `db`, if any (otherwise another process's poll takes its entries). */
export function smsHandoverOf(db: Database): SmsHandover | undefined {
  return running.get(db);
}

/** Starts this process's hand-over; stop() waits for the round in progress. */
export function startSmsHandover(deps: UseCaseDeps): SmsHandover {
  let wanted = false;
  let stopped = false;
  let round: Promise<void> | undefined;

  const drain = async () => {
    while (!stopped) {
      wanted = false;
      const taken = await handOverDueSms(deps);
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

  /** Accepted SMS gathered for a batch (MESSAGING_BATCH_LINGER), with the timer that starts it. */
  let gathered: Handed[] = [];
  let gathering: NodeJS.Timeout | undefined;
  const startDirectly = (messages: Handed[]) => {
    const task: Promise<void> = startWorkflows(deps, messages)
      .then(async (started) => {
        if (started.length > 0)
          await deps.db.delete(messagingOutbox).where(inArray(messagingOutbox.messageId, started));
      })
      .catch((error: unknown) => {
        deps.logger.warn(
          { err: error },
          'outbox entries of started workflows not deleted; their lease passes',
        );
      })
      .finally(() => direct.delete(task));
    direct.add(task);
  };
  const startGathered = () => {
    clearTimeout(gathering);
    gathering = undefined;
    const taking = gathered;
    gathered = [];
    if (taking.length > 0) startDirectly(taking);
  };

  const handover: SmsHandover = {
    wake,
    handOver(message, text) {
      const handed: Handed = { row: message, text, traceContext: activeTraceContext(), attempts: 0 };
      if (!batchable(deps.config, message)) {
        startDirectly([handed]);
        return;
      }
      gathered.push(handed);
      if (gathered.length >= deps.config.MESSAGING_BATCH_SIZE) startGathered();
      else gathering ??= setTimeout(startGathered, deps.config.MESSAGING_BATCH_LINGER);
    },
    async stop() {
      stopped = true;
      clearInterval(poll);
      startGathered();
      running.delete(deps.db);
      await Promise.all([round, ...direct]);
    },
  };
  running.set(deps.db, handover);
  wake();
  return handover;
}

/** One round: takes up to BATCH_SIZE due entries, starts their workflows, deletes the started ones. */
export async function handOverDueSms(deps: UseCaseDeps): Promise<number> {
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
  const handed: Handed[] = [];
  for (const entry of taken) {
    const row = messages.get(entry.messageId);
    if (!row) continue; // deleted with its message (cascade)
    try {
      const text = entry.sealedText ? openCodeMessage(config, row.id, entry.sealedText) : row.message;
      handed.push({ row, text, traceContext: entry.traceContext, attempts: entry.attempts });
    } catch (error) {
      deps.logger.warn({ err: error, messageId: row.id }, 'message text could not be opened; retried');
    }
  }
  const started = await startWorkflows(deps, handed);
  if (started.length > 0) await db.delete(messagingOutbox).where(inArray(messagingOutbox.messageId, started));
  return taken.length;
}

/** A message taken from the outbox, with its text, on its way to a workflow. */
interface Handed {
  row: typeof messagingMessages.$inferSelect;
  text: string;
  traceContext: Record<string, string> | null;
  attempts: number;
}

/** Whether a message goes in a batch (decision 0074): an SMS due now, while batches are on. */
const batchable = (config: UseCaseDeps['config'], row: typeof messagingMessages.$inferSelect) =>
  config.MESSAGING_BATCH_SIZE > 0 && row.channel === 'sms' && row.status === 'accepted';

/**
 * Starts the workflows of handed messages: each account's SMS due now in batches of up to
 * MESSAGING_BATCH_SIZE (an account's batch: its workflow is owned by one account, like every other),
 * the others one workflow each. Answers the ids of the messages whose workflow started (or already had).
 */
async function startWorkflows(deps: UseCaseDeps, handed: Handed[]): Promise<string[]> {
  const { config } = deps;
  const starts: Array<{ ids: string[]; start: () => Promise<void> }> = [];
  const byAccount = new Map<string, Handed[]>();
  const followed: string[] = [];
  for (const message of handed) {
    // Claimed by a batch already (a hand-over repeated after a crash): that batch follows it, and a
    // workflow of its own would submit it a second time (issue 37).
    if (message.row.processId) {
      followed.push(message.row.id);
      continue;
    }
    if (!batchable(config, message.row)) {
      const accepted = propagation.extract(ROOT_CONTEXT, message.traceContext ?? {});
      starts.push({
        ids: [message.row.id],
        start: () =>
          context.with(accepted, () =>
            startMessageWorkflow(deps, deliveryInputOf(config, message.row, message.text)),
          ),
      });
      continue;
    }
    const account = byAccount.get(message.row.accountId) ?? [];
    account.push(message);
    byAccount.set(message.row.accountId, account);
  }
  for (const messages of byAccount.values())
    for (let from = 0; from < messages.length; from += config.MESSAGING_BATCH_SIZE) {
      const batch = messages.slice(from, from + config.MESSAGING_BATCH_SIZE);
      starts.push({
        ids: batch.map((message) => message.row.id),
        start: () => startBatchWorkflow(deps, batch),
      });
    }

  const started = await mapConcurrently(starts, CONCURRENT_STARTS, async ({ ids, start }) => {
    try {
      await start();
      return ids;
    } catch (error) {
      deps.logger.warn(
        { err: error, messageIds: ids.slice(0, 5), count: ids.length },
        'messages not handed over to their workflow; retried when their lease passes',
      );
      return [];
    }
  });
  return [...followed, ...started.flat()];
}

/**
 * A batch's id names its first message and, by a digest, all of them: a hand-over repeated after a
 * crash with the same messages meets the same workflow; with other messages (some taken elsewhere
 * meanwhile) it is another batch, and each message is claimed by one batch only (submitMessageBatch).
 */
function batchIdOf(messageIds: string[]): string {
  const digest = createHash('sha256').update(messageIds.join(',')).digest('hex').slice(0, 12);
  return `${messageIds[0]}-${digest}`;
}

async function startBatchWorkflow(deps: UseCaseDeps, batch: Handed[]): Promise<void> {
  const { config } = deps;
  const batchId = batchIdOf(batch.map((message) => message.row.id));
  const input: MessageBatchInput = {
    batchId,
    messages: batch.map(({ row, text }) => ({
      messageId: row.id,
      accountId: row.accountId,
      to: row.to,
      from: row.from,
      message: text,
      parts: row.parts,
      ...(row.dlrUrl ? { dlrUrl: row.dlrUrl } : {}),
    })),
    receiptTimeoutMs: config.SMS_RECEIPT_TIMEOUT,
    submitTimeoutMs: config.SMS_SUBMIT_TIMEOUT,
  };
  // One trace per batch: the first message's request (the others' spans end at their accept).
  const accepted = propagation.extract(ROOT_CONTEXT, batch[0]?.traceContext ?? {});
  try {
    await context.with(accepted, () =>
      deps.temporal.workflow.start<typeof messageBatch>('messageBatch', {
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowId: messageBatchWorkflowId(batchId),
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [input],
        typedSearchAttributes: [
          { key: PlatformService, value: 'messaging' },
          { key: OwnerId, value: batch[0]!.row.accountId },
        ],
        staticSummary: `SMS batch of ${batch.length}`,
      }),
    );
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
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
