import { randomUUID } from 'node:crypto';
import { and, asc, eq, gte, lt, sql } from 'drizzle-orm';
import { codeMessageDigest, sealCodeMessage } from '../../credentials/messaging/code-messages.ts';
import { messagingMessages, messagingOutbox } from '../../db/schema/messaging.ts';
import { maskedCodeMessage } from '../../domain/messaging/code-messages.ts';
import type { MessageStatus } from '../../domain/messaging/delivery-receipt.ts';
import { isAlphanumericSender, normaliseNumber } from '../../domain/messaging/phone.ts';
import { messageWorkflowId } from '../../domain/messaging/processes.ts';
import { countSegments, MAX_SMS_PARTS } from '../../domain/messaging/segments.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { requireSameRequest } from '../shared/idempotency.ts';
import { assertOutboundUrlField } from '../shared/outbound-url.ts';
import { Refusal } from '../shared/refusal.ts';
import { activeTraceContext, messageHandoverOf } from './handover.ts';
import { offsetOf, type Page } from './page.ts';
import { assertUsableSender } from './sender-ids.ts';

/**
 * Messages of an account (POST /sms, POST /chatapp, GET /sms/{id}, GET /sms): accepting one (the checks,
 * the idempotency key, the row and its outbox entry for the hand-over to the workflow `sms-<id>`) and
 * reading the read model.
 */

/** Chat-app messages are not split into segments; the provider accepts up to this many characters. */
const MAX_CHATAPP_LENGTH = 4096;
/** How far ahead a message may be scheduled. */
const MAX_SCHEDULE_AHEAD_MS = 365 * 86_400_000;

export type Channel = 'sms' | 'chatapp';
export type Encoding = 'GSM-7' | 'UCS-2' | 'UTF-8';

/** A message as the account asks for it (the API's MessageRequest). */
export interface MessageRequest {
  to: string;
  from: string;
  message: string;
  /** ISO 8601 with offset. */
  scheduled?: string | undefined;
  dlrUrl?: string | undefined;
  /** The text carries a one-time code: the read model keeps it masked. */
  containsCode?: boolean | undefined;
}

export interface AcceptedMessage {
  id: string;
  status: 'accepted' | 'scheduled';
  to: string;
  from: string;
  encoding: Encoding;
  parts: number;
  scheduled: string | null;
  dlrUrl: string | null;
  createdAt: string;
}

export interface MessageView {
  id: string;
  channel: Channel;
  status: MessageStatus;
  to: string;
  from: string;
  /** Masked when `containsCode`. */
  message: string;
  containsCode: boolean;
  encoding: Encoding;
  parts: number;
  scheduled: string | null;
  dlrUrl: string | null;
  error: string | null;
  createdAt: string;
  submittedAt: string | null;
  doneAt: string | null;
  /** The workflow that follows the message, for the Temporal Web UI (null until handed over). */
  process: string | null;
}

export interface ScheduledMessage {
  id: string;
  scheduled: string;
  from: string;
  to: string;
  message: string;
  dlrUrl: string | null;
}

interface ValidatedMessage {
  to: string;
  encoding: Encoding;
  parts: number;
  scheduled: Date | undefined;
}

/** Checks what the schema cannot: a real recipient number, a usable sender, the length, the schedule. */
async function validateMessage(
  deps: UseCaseDeps,
  accountId: string,
  channel: Channel,
  body: MessageRequest,
): Promise<ValidatedMessage> {
  assertOutboundUrlField(deps.config, 'dlrUrl', body.dlrUrl);
  const recipient = normaliseNumber(body.to);
  if (!recipient) throw Refusal.field('to', 'not a valid phone number in international format');
  if (!isAlphanumericSender(body.from) && !normaliseNumber(body.from)) {
    throw Refusal.field('from', 'must be a phone number or an alphanumeric sender ID of 1-11 characters');
  }
  await assertUsableSender(deps, accountId, body.from);

  let encoding: Encoding = 'UTF-8';
  let parts = 1;
  if (channel === 'sms') {
    ({ encoding, parts } = countSegments(body.message));
    if (parts > MAX_SMS_PARTS) {
      throw Refusal.field('message', `too long: ${parts} segments, at most ${MAX_SMS_PARTS} (${encoding})`);
    }
  } else if (body.message.length > MAX_CHATAPP_LENGTH) {
    throw Refusal.field('message', `too long: at most ${MAX_CHATAPP_LENGTH} characters`);
  }

  const scheduled = body.scheduled ? new Date(body.scheduled) : undefined;
  if (scheduled && scheduled.getTime() > Date.now() + MAX_SCHEDULE_AHEAD_MS) {
    throw Refusal.field('scheduled', 'must be at most one year ahead');
  }
  return { to: recipient.e164, encoding, parts, scheduled };
}

/**
 * Accepts a message: checks it and records it with its outbox entry (once per idempotency key); the
 * hand-over (handover.ts) starts its workflow. A repeated request with the same key answers the first
 * message.
 */
export async function acceptMessage(
  deps: UseCaseDeps,
  accountId: string,
  channel: Channel,
  body: MessageRequest,
  idempotencyKey: string | undefined,
): Promise<AcceptedMessage> {
  const checked = await validateMessage(deps, accountId, channel, body);
  // A text with a one-time code is kept masked, with a keyed digest that binds the key to it.
  const containsCode = body.containsCode === true;
  const stored = containsCode
    ? {
        message: maskedCodeMessage(body.message),
        messageDigest: codeMessageDigest(deps.config, accountId, body.message),
      }
    : { message: body.message, messageDigest: null };
  const now = new Date();
  const waits = checked.scheduled !== undefined && checked.scheduled.getTime() > now.getTime();
  // The message and its outbox entry in one statement (decision 0066, amended 2026-11-28): a
  // data-modifying CTE is one transaction without a begin and a commit, so once answered its hand-over to
  // the workflow is durable, whichever process survives. The id is made here, so that the sealed text
  // (bound to it) goes in with the row. A process with a hand-over leases the entry to itself and starts
  // the workflow right after; the others' polls take it if it dies.
  const handover = messageHandoverOf(deps.db);
  const id = randomUUID();
  const traceContext = activeTraceContext();
  const message = deps.db.$with('m').as(
    deps.db
      .insert(messagingMessages)
      .values({
        id,
        accountId,
        channel,
        to: checked.to,
        from: body.from,
        ...stored,
        containsCode,
        encoding: checked.encoding,
        parts: checked.parts,
        dlrUrl: body.dlrUrl ?? null,
        scheduled: checked.scheduled ?? null,
        status: waits ? 'scheduled' : 'accepted',
        idempotencyKey: idempotencyKey ?? null,
      })
      .onConflictDoNothing()
      .returning(),
  );
  // Its outbox entry only when the row went in (a repeated key inserts neither).
  const outbox = deps.db.$with('o').as(
    deps.db.insert(messagingOutbox).select(
      deps.db
        .select({
          messageId: message.id,
          // The row keeps a flagged text masked: the outbox holds it sealed until the workflow has it.
          sealedText: sql<
            string | null
          >`${containsCode ? sealCodeMessage(deps.config, id, body.message) : null}::text`.as('sealed_text'),
          traceContext: sql<unknown>`${traceContext ? JSON.stringify(traceContext) : null}::jsonb`.as(
            'trace_context',
          ),
          leaseUntil: handover
            ? sql<Date>`now() + ${deps.config.MESSAGING_HANDOVER_LEASE} * interval '1 millisecond'`.as(
                'lease_until',
              )
            : sql<Date>`now()`.as('lease_until'),
          attempts: sql<number>`0`.as('attempts'),
          createdAt: sql<Date>`now()`.as('created_at'),
        })
        .from(message),
    ),
  );
  const [inserted] = await deps.db.with(message, outbox).select().from(message);
  // A repeated key: the first message, read after (the conflicting insert waited for its commit).
  const [found] = inserted
    ? [undefined]
    : await deps.db
        .select()
        .from(messagingMessages)
        .where(
          and(
            eq(messagingMessages.accountId, accountId),
            eq(messagingMessages.idempotencyKey, idempotencyKey ?? ''),
          ),
        );
  const row = inserted ?? found;
  if (!row) throw new Error('message neither inserted nor found');
  if (inserted) handover?.handOver(inserted, body.message);
  // The key is bound to the whole request: every field (scheduled and dlrUrl too) must match.
  if (!inserted) {
    const { to, from, message, messageDigest, scheduled, dlrUrl } = row;
    requireSameRequest(
      {
        channel: row.channel,
        to,
        from,
        containsCode: row.containsCode,
        message,
        messageDigest,
        scheduled,
        dlrUrl,
      },
      {
        channel,
        to: checked.to,
        from: body.from,
        containsCode,
        message: stored.message,
        messageDigest: stored.messageDigest,
        scheduled: checked.scheduled,
        dlrUrl: body.dlrUrl,
      },
      { message: 'This Idempotency-Key was used for a different message' },
    );
  }

  return {
    id: row.id,
    status: row.status === 'scheduled' ? 'scheduled' : 'accepted',
    to: row.to,
    from: row.from,
    encoding: row.encoding,
    parts: row.parts,
    scheduled: row.scheduled?.toISOString() ?? null,
    dlrUrl: row.dlrUrl,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * The workflow that follows the message (decision 0074): the batch it was handed over in, else its own
 * `sms-<id>`; null while an SMS waits to be handed over in a batch.
 */
function processOf(row: typeof messagingMessages.$inferSelect): string | null {
  if (row.processId) return row.processId;
  return row.status === 'accepted' && row.channel === 'sms' ? null : messageWorkflowId(row.id);
}

/** One message of the account (SMS or chat-app) from the read model; 404 for another account's. */
export async function getMessage(deps: UseCaseDeps, accountId: string, id: string): Promise<MessageView> {
  const [row] = await deps.db
    .select()
    .from(messagingMessages)
    .where(and(eq(messagingMessages.id, id), eq(messagingMessages.accountId, accountId)));
  if (!row) throw Refusal.notFound('Message');
  return {
    id: row.id,
    channel: row.channel,
    status: row.status as MessageStatus,
    to: row.to,
    from: row.from,
    message: row.message,
    containsCode: row.containsCode,
    encoding: row.encoding,
    parts: row.parts,
    scheduled: row.scheduled?.toISOString() ?? null,
    dlrUrl: row.dlrUrl,
    error: row.error,
    createdAt: row.createdAt.toISOString(),
    submittedAt: row.submittedAt?.toISOString() ?? null,
    doneAt: row.doneAt?.toISOString() ?? null,
    process: processOf(row),
  };
}

/** The account's messages that wait for their scheduled time (on one UTC day if given), earliest first. */
export async function listScheduledMessages(
  deps: UseCaseDeps,
  accountId: string,
  query: { scheduledOn?: string | undefined; page: number; size: number },
): Promise<Page<ScheduledMessage>> {
  const { scheduledOn, page, size } = query;
  const conditions = [eq(messagingMessages.accountId, accountId), eq(messagingMessages.status, 'scheduled')];
  if (scheduledOn) {
    const dayStart = new Date(`${scheduledOn}T00:00:00Z`);
    conditions.push(
      gte(messagingMessages.scheduled, dayStart),
      lt(messagingMessages.scheduled, new Date(dayStart.getTime() + 86_400_000)),
    );
  }
  const rows = await deps.db
    .select()
    .from(messagingMessages)
    .where(and(...conditions))
    .orderBy(asc(messagingMessages.scheduled), asc(messagingMessages.id))
    .limit(size)
    .offset(offsetOf(page, size));
  return {
    page,
    size,
    items: rows.map((row) => ({
      id: row.id,
      scheduled: (row.scheduled ?? row.createdAt).toISOString(),
      from: row.from,
      to: row.to,
      message: row.message,
      dlrUrl: row.dlrUrl,
    })),
  };
}
