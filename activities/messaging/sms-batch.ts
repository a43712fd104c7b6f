import { Context } from '@temporalio/activity';
import { and, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { SmsCarrier } from '../../connectors/messaging/carriers.ts';
import type { Database } from '../../db/client.ts';
import { messagingMessages } from '../../db/schema/messaging.ts';
import type { MessageFinalStatus } from '../../domain/messaging/delivery-receipt.ts';
import type { Logger } from '../../platform/logger.ts';
import { permanentFailureOf } from '../shared/permanent-failures.ts';
import { type SubmissionRecord, submitTraced } from './sms.ts';

/**
 * Activities of the batch workflow (workflows/messaging/sms-batch.ts, decision 0074): a batch's SMS
 * handed to the carrier over the bind's window, their submissions and outcomes written to the read
 * model a statement at a time.
 */
export interface SmsBatchActivityDeps {
  db: Database;
  carrier: SmsCarrier;
  logger: Logger;
}

/** What one hand-over of a batch (or of its messages not handed over yet) achieved. */
export interface BatchHandOver {
  /** Accepted by the carrier; `recorded: false` when the read model could not be written (the workflow does it). */
  submitted: Array<SubmissionRecord & { recorded: boolean }>;
  /** Refused by the carrier for good. */
  rejected: Array<{ messageId: string; error: string }>;
  /** Not handed over this time (no bind, throttled, no answer): the workflow tries them again later. */
  unsent: Array<{ messageId: string; error: string }>;
  /** Taken by another batch (a hand-over repeated after a crash) or deleted: not this batch's to follow. */
  elsewhere: string[];
}

export interface MessageOutcome {
  messageId: string;
  status: MessageFinalStatus;
  error?: string | undefined;
  /** The carrier's done time, if it gave one. */
  doneAt?: string | undefined;
}

/** How often a long hand-over tells Temporal it is alive (its heartbeat timeout is longer). */
const HEARTBEAT_MS = 2_000;

const valuesList = (rows: SQL[]) => sql.join(rows, sql`, `);

export function createSmsBatchActivities({ db, carrier, logger }: SmsBatchActivityDeps) {
  /** One statement for many submissions: the carrier ids, parts and times of each. */
  async function recordSubmissions(records: SubmissionRecord[]): Promise<void> {
    if (records.length === 0) return;
    const rows = records.map(
      (record) =>
        sql`(${record.messageId}, ${record.carrierMessageId}, ${
          record.carrierPartIds ? JSON.stringify(record.carrierPartIds) : null
        }::jsonb, ${record.carrier}, ${record.submittedAt}::timestamptz)`,
    );
    // As for a single message: an attempt still running when the workflow gave up records the carrier
    // id (a receipt may follow) but does not turn a `failed` message back to `submitted`.
    const m = messagingMessages;
    await db
      .update(m)
      .set({
        status: sql`case when ${m.status} = 'sending' then 'submitted' else ${m.status} end`,
        carrierMessageId: sql`v.carrier_message_id`,
        carrierPartIds: sql`case when v.part_ids is null then ${m.carrierPartIds}
          else array(select jsonb_array_elements_text(v.part_ids)) end`,
        parts: sql`case when v.part_ids is null then ${m.parts} else jsonb_array_length(v.part_ids) end`,
        carrier: sql`v.carrier`,
        submittedAt: sql`v.submitted_at`,
        updatedAt: new Date(),
      })
      .from(sql`(values ${valuesList(rows)}) as v(id, carrier_message_id, part_ids, carrier, submitted_at)`)
      .where(sql`${m.id} = v.id`);
  }

  async function recordRejections(rejected: Array<{ messageId: string; error: string }>): Promise<void> {
    if (rejected.length === 0) return;
    const rows = rejected.map((entry) => sql`(${entry.messageId}, ${entry.error})`);
    const m = messagingMessages;
    await db
      .update(m)
      .set({ status: 'rejected', error: sql`v.error`, updatedAt: new Date() })
      .from(sql`(values ${valuesList(rows)}) as v(id, error)`)
      .where(and(sql`${m.id} = v.id`, eq(m.status, 'sending')));
  }

  /**
   * Writes submissions as the carrier answers them, a statement per burst: what has been written is
   * never submitted again by a retry, so a crash doubles at most what was outstanding or unwritten.
   */
  function submissionWriter() {
    let queued: SubmissionRecord[] = [];
    const written = new Set<string>();
    let writing: Promise<void> | undefined;
    const writeQueued = async (): Promise<void> => {
      while (queued.length > 0) {
        const taking = queued;
        queued = [];
        try {
          await recordSubmissions(taking);
          for (const record of taking) written.add(record.messageId);
        } catch (error) {
          // The database is away: these stay unwritten; the workflow records them (never a resubmit).
          logger.warn(
            { err: (error as Error).message, count: taking.length },
            'submissions not recorded yet',
          );
          return;
        }
      }
    };
    return {
      add(record: SubmissionRecord) {
        queued.push(record);
        writing ??= writeQueued().finally(() => {
          writing = undefined;
        });
      },
      async flush(): Promise<Set<string>> {
        await writing;
        if (queued.length > 0) await writeQueued();
        return written;
      },
    };
  }

  return {
    /**
     * Hands a batch's messages to the carrier once each. The messages are first claimed for this batch
     * (`sending` with its process id, written before any submit_sm goes out): a message another batch
     * claimed is left to it, and a retry finds the ones whose carrier id was written and does not send
     * them again. All go out together over the bind's window (SMPP_WINDOW).
     */
    async submitMessageBatch(input: {
      processId: string;
      messages: Array<{ messageId: string; to: string; from: string; message: string }>;
    }): Promise<BatchHandOver> {
      const ids = input.messages.map((message) => message.messageId);
      const claimed = await db
        .update(messagingMessages)
        .set({
          status: sql`case when ${messagingMessages.status} in ('accepted', 'scheduled') then 'sending' else ${messagingMessages.status} end`,
          processId: input.processId,
          updatedAt: new Date(),
        })
        .where(
          and(
            inArray(messagingMessages.id, ids),
            or(
              inArray(messagingMessages.status, ['accepted', 'scheduled']),
              eq(messagingMessages.processId, input.processId),
            ),
          ),
        )
        .returning({
          id: messagingMessages.id,
          status: messagingMessages.status,
          error: messagingMessages.error,
          carrierMessageId: messagingMessages.carrierMessageId,
          carrierPartIds: messagingMessages.carrierPartIds,
          carrier: messagingMessages.carrier,
          submittedAt: messagingMessages.submittedAt,
        });
      const byId = new Map(claimed.map((row) => [row.id, row]));
      const result: BatchHandOver = { submitted: [], rejected: [], unsent: [], elsewhere: [] };
      const toSend: typeof input.messages = [];
      for (const message of input.messages) {
        const row = byId.get(message.messageId);
        if (!row) result.elsewhere.push(message.messageId);
        else if (row.carrierMessageId)
          result.submitted.push({
            messageId: row.id,
            carrierMessageId: row.carrierMessageId,
            ...(row.carrierPartIds ? { carrierPartIds: row.carrierPartIds } : {}),
            carrier: row.carrier ?? carrier.identity,
            submittedAt: (row.submittedAt ?? new Date()).toISOString(),
            recorded: true,
          });
        else if (row.status === 'sending') toSend.push(message);
        // Refused earlier (a retry after the refusal was written): final.
        else result.rejected.push({ messageId: row.id, error: row.error ?? `${row.status} earlier` });
      }

      const context = Context.current();
      const heartbeat = setInterval(() => context.heartbeat(), HEARTBEAT_MS);
      const writer = submissionWriter();
      const fresh: SubmissionRecord[] = [];
      const rejected: BatchHandOver['rejected'] = [];
      try {
        await Promise.all(
          toSend.map(async (message) => {
            try {
              const answer = await submitTraced(carrier, 'sms', message);
              if (answer.outcome === 'rejected') {
                rejected.push({ messageId: message.messageId, error: answer.error });
                return;
              }
              const record: SubmissionRecord = {
                messageId: message.messageId,
                carrierMessageId: answer.carrierMessageId,
                ...(answer.carrierPartIds ? { carrierPartIds: answer.carrierPartIds } : {}),
                carrier: carrier.identity,
                submittedAt: new Date().toISOString(),
              };
              fresh.push(record);
              writer.add(record);
            } catch (error) {
              result.unsent.push({ messageId: message.messageId, error: (error as Error).message });
            }
          }),
        );
        const written = await writer.flush();
        for (const record of fresh)
          result.submitted.push({ ...record, recorded: written.has(record.messageId) });
        await recordRejections(rejected);
        result.rejected.push(...rejected);
      } finally {
        clearInterval(heartbeat);
      }
      if (result.unsent.length > 0)
        logger.warn(
          { processId: input.processId, unsent: result.unsent.length, reason: result.unsent[0]?.error },
          'messages not handed over to the carrier; tried again',
        );
      return result;
    },

    /** The bookkeeping of submissions the carrier accepted while the database was away; retried until it lands. */
    async recordCarrierSubmissions(input: { submissions: SubmissionRecord[] }): Promise<void> {
      await recordSubmissions(input.submissions);
    },

    /**
     * Writes final statuses, a statement for all; answers each message's done time. A carrier's done
     * time earlier than our submission (carriers report to the minute) reads as the submission time.
     * A row the database refuses (a carrier's error text it cannot store, issue 20) is written alone
     * with the refusal as its error, so one odd receipt cannot hold up the others.
     */
    async recordMessageOutcomes(input: { outcomes: MessageOutcome[] }): Promise<Record<string, string>> {
      const write = async (outcomes: MessageOutcome[]) => {
        const rows = outcomes.map(
          (outcome) =>
            sql`(${outcome.messageId}, ${outcome.status}, ${outcome.error ?? null}, ${outcome.doneAt ?? null}::timestamptz)`,
        );
        const m = messagingMessages;
        const written = await db
          .update(m)
          .set({
            status: sql`v.status`,
            error: sql`v.error`,
            doneAt: sql`greatest(coalesce(v.done_at, now()), ${m.submittedAt})`,
            updatedAt: new Date(),
          })
          .from(sql`(values ${valuesList(rows)}) as v(id, status, error, done_at)`)
          .where(sql`${m.id} = v.id`)
          .returning({ id: m.id, doneAt: m.doneAt });
        return Object.fromEntries(written.map((row) => [row.id, (row.doneAt ?? new Date()).toISOString()]));
      };
      if (input.outcomes.length === 0) return {};
      try {
        return await write(input.outcomes);
      } catch (error) {
        if (!permanentFailureOf(error)) throw error;
      }
      const doneAt: Record<string, string> = {};
      for (const outcome of input.outcomes) {
        try {
          Object.assign(doneAt, await write([outcome]));
        } catch (error) {
          const refusal = permanentFailureOf(error);
          if (!refusal) throw error;
          const error_ = `the delivery receipt could not be recorded: ${refusal.message}`;
          Object.assign(
            doneAt,
            await write([{ messageId: outcome.messageId, status: outcome.status, error: error_ }]),
          );
        }
      }
      return doneAt;
    },
  };
}
