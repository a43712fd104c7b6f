import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { codeMessageDigest, sealCodeMessage } from '../../../credentials/messaging/code-messages.ts';
import { messagingMessages, messagingOutbox } from '../../../db/schema/messaging.ts';
import { maskedCodeMessage } from '../../../domain/messaging/code-messages.ts';
import { isAlphanumericSender } from '../../../domain/messaging/phone.ts';
import { countSegments, MAX_SMS_PARTS } from '../../../domain/messaging/segments.ts';
import { normaliseNumber, SMS_RECIPIENT_RULE } from '../../../domain/phone-numbers.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';
import { type RequestFields, requireSameRequest } from '../../shared/idempotency.ts';
import { assertOutboundUrlField } from '../../shared/outbound-url.ts';
import { Refusal } from '../../shared/refusal.ts';
import { assertNotOptedOut } from '../inbound.ts';
import { assertUsableSender } from '../sender-id.ts';
import { activeTraceContext, smsHandoverOf } from './handover.ts';

/**
 * Sending an SMS or a chat-app message (POST /sms, POST /chatapp): one pipeline for both channels, the
 * workflow `sms-<id>` (messageDelivery) delivers either. Accepting checks the message, binds the
 * idempotency key and records the row with its outbox entry for the hand-over (handover.ts).
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
  if (!recipient) throw Refusal.field('to', SMS_RECIPIENT_RULE);
  if (!isAlphanumericSender(body.from) && !normaliseNumber(body.from)) {
    throw Refusal.field('from', 'must be a phone number or an alphanumeric sender ID of 1-11 characters');
  }
  await assertUsableSender(deps, accountId, body.from);
  // A handset that sent STOP to this number (decision 0087); an alphanumeric sender cannot be answered.
  const sender = isAlphanumericSender(body.from) ? undefined : normaliseNumber(body.from)?.e164;
  if (sender) await assertNotOptedOut(deps, sender, recipient.e164);

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

/** What POST /sms and POST /chatapp ask: the account, its message, and the Idempotency-Key if sent. */
export interface SendMessageInput {
  accountId: string;
  request: MessageRequest;
  idempotencyKey?: string | undefined;
}

/** POST /sms: accepts an SMS (see acceptMessage). */
export function sendSms(deps: UseCaseDeps, input: SendMessageInput): Promise<AcceptedMessage> {
  return acceptMessage(deps, 'sms', input);
}

/** POST /chatapp: accepts a chat-app message, delivered by the same workflow as an SMS (see acceptMessage). */
export function sendChatApp(deps: UseCaseDeps, input: SendMessageInput): Promise<AcceptedMessage> {
  return acceptMessage(deps, 'chatapp', input);
}

/** The row's text: a text with a one-time code is kept masked, with a keyed digest that binds the key to it. */
function storedTextOf(
  config: UseCaseDeps['config'],
  accountId: string,
  request: MessageRequest,
): { message: string; messageDigest: string | null } {
  return request.containsCode === true
    ? {
        message: maskedCodeMessage(request.message),
        messageDigest: codeMessageDigest(config, accountId, request.message),
      }
    : { message: request.message, messageDigest: null };
}

type MessageRow = typeof messagingMessages.$inferSelect;

/**
 * Accepts a message: checks it and records it with its outbox entry (once per idempotency key); the
 * hand-over (handover.ts) starts its workflow. A repeated request with the same key answers the first
 * message.
 */
async function acceptMessage(
  deps: UseCaseDeps,
  channel: Channel,
  { accountId, request, idempotencyKey }: SendMessageInput,
): Promise<AcceptedMessage> {
  const checked = await validateMessage(deps, accountId, channel, request);
  const containsCode = request.containsCode === true;
  const stored = storedTextOf(deps.config, accountId, request);
  const now = new Date();
  const waits = checked.scheduled !== undefined && checked.scheduled.getTime() > now.getTime();
  const handover = smsHandoverOf(deps.db);
  const id = randomUUID();
  const values = {
    id,
    accountId,
    channel,
    to: checked.to,
    from: request.from,
    ...stored,
    containsCode,
    encoding: checked.encoding,
    parts: checked.parts,
    dlrUrl: request.dlrUrl ?? null,
    scheduled: checked.scheduled ?? null,
    status: waits ? 'scheduled' : 'accepted',
    idempotencyKey: idempotencyKey ?? null,
  } satisfies typeof messagingMessages.$inferInsert;
  const sealedText = containsCode ? sealCodeMessage(deps.config, id, request.message) : null;
  const inserted = await insertWithOutbox(deps, values, sealedText, handover !== undefined);
  if (inserted) {
    handover?.handOver(inserted, request.message);
    return acceptedOf(inserted);
  }
  // A repeated key: the first message, read after (the conflicting insert waited for its commit).
  const first = await messageUnderKey(deps, accountId, idempotencyKey);
  requireSameMessage(first, values);
  return acceptedOf(first);
}

/**
 * The message and its outbox entry in one statement (decision 0066, amended 2026-11-28): a
 * data-modifying CTE is one transaction without a begin and a commit, so once answered its hand-over to
 * the workflow is durable, whichever process survives. The id is made by the caller, so that the sealed
 * text (bound to it) goes in with the row. A process with a hand-over (`leased`) leases the entry to
 * itself and starts the workflow right after; the others' polls take it if it dies. Answers the row, or
 * undefined when the idempotency key was taken (then neither goes in).
 */
async function insertWithOutbox(
  deps: UseCaseDeps,
  values: typeof messagingMessages.$inferInsert,
  sealedText: string | null,
  leased: boolean,
): Promise<MessageRow | undefined> {
  const traceContext = activeTraceContext();
  const message = deps.db
    .$with('m')
    .as(deps.db.insert(messagingMessages).values(values).onConflictDoNothing().returning());
  // Its outbox entry only when the row went in (a repeated key inserts neither).
  const outbox = deps.db.$with('o').as(
    deps.db.insert(messagingOutbox).select(
      deps.db
        .select({
          messageId: message.id,
          // The row keeps a flagged text masked: the outbox holds it sealed until the workflow has it.
          sealedText: sql<string | null>`${sealedText}::text`.as('sealed_text'),
          traceContext: sql<unknown>`${traceContext ? JSON.stringify(traceContext) : null}::jsonb`.as(
            'trace_context',
          ),
          leaseUntil: leased
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
  return inserted;
}

/** The account's message recorded under the key (the one whose insert made ours conflict). */
async function messageUnderKey(
  deps: UseCaseDeps,
  accountId: string,
  idempotencyKey: string | undefined,
): Promise<MessageRow> {
  const [found] = await deps.db
    .select()
    .from(messagingMessages)
    .where(
      and(
        eq(messagingMessages.accountId, accountId),
        eq(messagingMessages.idempotencyKey, idempotencyKey ?? ''),
      ),
    );
  if (!found) throw new Error('message neither inserted nor found');
  return found;
}

/** What a repeated key is compared on: the whole request (scheduled and dlrUrl too), as recorded. */
type RequestedMessage = Pick<
  MessageRow,
  'channel' | 'to' | 'from' | 'containsCode' | 'message' | 'messageDigest' | 'scheduled' | 'dlrUrl'
>;

const requestOf = (row: RequestedMessage): RequestFields => {
  const { channel, to, from, containsCode, message, messageDigest, scheduled, dlrUrl } = row;
  return { channel, to, from, containsCode, message, messageDigest, scheduled, dlrUrl };
};

/** The key is bound to the whole request: every field must match the first message's. */
function requireSameMessage(first: MessageRow, again: RequestedMessage): void {
  requireSameRequest(requestOf(first), requestOf(again), {
    message: 'This Idempotency-Key was used for a different message',
  });
}

const acceptedOf = (row: MessageRow): AcceptedMessage => ({
  id: row.id,
  status: row.status === 'scheduled' ? 'scheduled' : 'accepted',
  to: row.to,
  from: row.from,
  encoding: row.encoding,
  parts: row.parts,
  scheduled: row.scheduled?.toISOString() ?? null,
  dlrUrl: row.dlrUrl,
  createdAt: row.createdAt.toISOString(),
});
