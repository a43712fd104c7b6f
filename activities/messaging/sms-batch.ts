import { Context } from '@temporalio/activity';
import { and, eq, inArray, isNull, or, type SQL, sql } from 'drizzle-orm';
import { NotTakenError, type SmsCarrier } from '../../connectors/messaging/carriers.ts';
import type { Database } from '../../db/client.ts';
import { messagingMessages } from '../../db/schema/messaging.ts';
import type { MessageFinalStatus } from '../../domain/messaging/delivery-receipt.ts';
import { inDoubtAction } from '../../domain/messaging/in-doubt.ts';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { coalescing } from '../shared/coalesce.ts';
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
  config: Pick<Config, 'SMS_IN_DOUBT' | 'SMS_IN_DOUBT_CODES'>;
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
  /**
   * In doubt and not sent again (SMS_IN_DOUBT `unknown`, decision 0084): the workflow ends them
   * `unknown`. Absent from hand-overs recorded before 0084.
   */
  inDoubt?: string[];
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

export function createSmsBatchActivities({ db, carrier, logger, config }: SmsBatchActivityDeps) {
  const policy = { ordinary: config.SMS_IN_DOUBT, codes: config.SMS_IN_DOUBT_CODES };
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

  /** The wire mark of decision 0084, written (many at a time) just before each message's submit_sm. */
  const markOnWire = coalescing(async (marks: Array<{ id: string; carrier: string }>) => {
    // With the carrier it goes to: in doubt, the message stays on that carrier (decision 0079).
    const rows = marks.map((mark) => sql`(${mark.id}, ${mark.carrier})`);
    const m = messagingMessages;
    await db
      .update(m)
      .set({ wireAt: sql`now()`, carrier: sql`v.carrier` })
      .from(sql`(values ${valuesList(rows)}) as v(id, carrier)`)
      .where(sql`${m.id} = v.id`);
  });
  /** Each submission written as the carrier answers it (many at a time): never submitted again. */
  const recordSubmission = coalescing(recordSubmissions);

  /** A submission the carrier certainly did not take is not in doubt: its mark goes. */
  async function clearWireMarks(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    try {
      await db
        .update(messagingMessages)
        .set({ wireAt: null, carrier: null })
        .where(and(inArray(messagingMessages.id, ids), isNull(messagingMessages.carrierMessageId)));
    } catch (error) {
      // Left marked, they count as in doubt: the safe side of the policy.
      logger.warn({ err: (error as Error).message, count: ids.length }, 'wire marks not cleared');
    }
  }

  return {
    /**
     * Hands a batch's messages to the carrier once each. The messages are first claimed for this batch
     * (`sending` with its process id, written before any submit_sm goes out): a message another batch
     * claimed is left to it, and a retry finds the ones whose carrier id was written and does not send
     * them again. All go out together over the bind's window (SMPP_WINDOW), each after its wire mark
     * (decision 0084): after a crash, only a message marked without a carrier id is in doubt, and the
     * policy (domain/messaging/in-doubt.ts) sends it again or ends it `unknown`; the others go out again.
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
          wireAt: messagingMessages.wireAt,
          containsCode: messagingMessages.containsCode,
        });
      const byId = new Map(claimed.map((row) => [row.id, row]));
      const inDoubt: string[] = [];
      const result: BatchHandOver = { submitted: [], rejected: [], unsent: [], elsewhere: [], inDoubt };
      const toSend: Array<(typeof input.messages)[number] & { carrier?: string | undefined }> = [];
      const resentInDoubt: string[] = [];
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
        else if (row.status !== 'sending')
          // Refused earlier (a retry after the refusal was written): final.
          result.rejected.push({ messageId: row.id, error: row.error ?? `${row.status} earlier` });
        else if (!row.wireAt) toSend.push(message);
        else if (inDoubtAction(policy, row) === 'unknown') inDoubt.push(row.id);
        else {
          resentInDoubt.push(row.id);
          // Sent again to the carrier that may have it, never to another (decision 0079).
          toSend.push({ ...message, carrier: row.carrier ?? undefined });
        }
      }
      if (resentInDoubt.length + inDoubt.length > 0)
        logger.warn(
          { processId: input.processId, resubmitted: resentInDoubt, unknown: inDoubt },
          'submit_sm in doubt (sent, unanswered before a crash)',
        );

      const context = Context.current();
      const heartbeat = setInterval(() => context.heartbeat(), HEARTBEAT_MS);
      const fresh: SubmissionRecord[] = [];
      const written = new Set<string>();
      const writes: Promise<void>[] = [];
      const rejected: BatchHandOver['rejected'] = [];
      const notTaken: string[] = [];
      try {
        await Promise.all(
          toSend.map(async (message) => {
            let marked = false;
            const beforeWire = async (identity?: string) => {
              await markOnWire({ id: message.messageId, carrier: identity ?? carrier.identity });
              marked = true;
            };
            try {
              const answer = await submitTraced(carrier, 'sms', { ...message, beforeWire });
              if (answer.outcome === 'rejected') {
                rejected.push({ messageId: message.messageId, error: answer.error });
                return;
              }
              const record: SubmissionRecord = {
                messageId: message.messageId,
                carrierMessageId: answer.carrierMessageId,
                ...(answer.carrierPartIds ? { carrierPartIds: answer.carrierPartIds } : {}),
                carrier: answer.carrier ?? carrier.identity,
                submittedAt: new Date().toISOString(),
              };
              fresh.push(record);
              writes.push(
                recordSubmission(record).then(
                  () => void written.add(record.messageId),
                  // The database is away: unwritten; the workflow records it (never a resubmit).
                  (error: Error) => logger.warn({ err: error.message }, 'submission not recorded yet'),
                ),
              );
            } catch (error) {
              if (marked && error instanceof NotTakenError) notTaken.push(message.messageId);
              result.unsent.push({ messageId: message.messageId, error: (error as Error).message });
            }
          }),
        );
        await Promise.all(writes);
        for (const record of fresh)
          result.submitted.push({ ...record, recorded: written.has(record.messageId) });
        await clearWireMarks(notTaken);
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
