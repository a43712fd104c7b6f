import { randomUUID } from 'node:crypto';
import { z } from '@hono/zod-openapi';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { and, eq } from 'drizzle-orm';
import type { UseCaseDeps } from '../../application/shared/deps.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import { messagingMessages } from '../../db/schema/messaging.ts';
import { isAlphanumericSender, normaliseNumber } from '../../domain/messaging/phone.ts';
import { type MessageDeliveryInput, messageWorkflowId } from '../../domain/messaging/processes.ts';
import { countSegments, MAX_SMS_PARTS } from '../../domain/messaging/segments.ts';
import { OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import { messageDelivery } from '../../workflows/messaging/sms.ts';
import { errorResponses } from '../shared/errors.ts';
import { assertOutboundUrlField } from '../shared/outbound-url.ts';
import { assertUsableSender } from './sender-id-records.ts';

/**
 * Accepting a message, shared by POST /sms (sms-send.ts) and POST /chatapp (chatapp.ts): the request and
 * answer of both, the checks, the idempotency key and the start of the message workflow (`sms-<id>`).
 */

/** Chat-app messages are not split into segments; the provider accepts up to this many characters. */
const MAX_CHATAPP_LENGTH = 4096;
/** How far ahead a message may be scheduled. */
const MAX_SCHEDULE_AHEAD_MS = 365 * 86_400_000;

const messageRequestSchema = z
  .object({
    to: z
      .string()
      .min(1)
      .max(32)
      .openapi({ description: 'Recipient, international (+359…) format', example: '+359888123456' }),
    from: z.string().min(1).max(16).openapi({
      description:
        'Sender: a phone number your account verified (POST /numbers), or an alphanumeric sender ID (1-11 characters) approved for your account',
      example: 'ACME',
    }),
    message: z
      .string()
      .min(1)
      .max(5000)
      .openapi({ description: 'Text of the message', example: 'Your code is 4711' }),
    scheduled: z.iso.datetime({ offset: true }).optional().openapi({
      description: 'Send at this time (ISO 8601 with offset); at once when absent',
      example: '2026-12-01T09:00:00Z',
    }),
    dlrUrl: z
      .url({ protocol: /^https?$/ })
      .optional()
      .openapi({
        description: 'Where the delivery report is POSTed (signed, retried)',
        example: 'https://example.com/dlr',
      }),
  })
  .openapi('MessageRequest');

const acceptedMessageSchema = z
  .object({
    id: z
      .string()
      .openapi({ description: 'Unique message id', example: '0f8fad5b-d9cb-469f-a165-70867728950e' }),
    status: z.enum(['accepted', 'scheduled']).openapi({ description: 'Initial status' }),
    to: z.string().openapi({ description: 'Recipient in E.164', example: '+359888123456' }),
    from: z.string().openapi({ example: 'ACME' }),
    encoding: z
      .enum(['GSM-7', 'UCS-2', 'UTF-8'])
      .openapi({ description: 'Encoding used on the air interface' }),
    parts: z.number().int().openapi({ description: 'Number of SMS segments billed', example: 1 }),
    scheduled: z.string().nullable().openapi({ description: 'Scheduled time, if any' }),
    dlrUrl: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi('AcceptedMessage');

const idempotencyHeaderSchema = z.object({
  'idempotency-key': z.string().min(1).max(255).optional().openapi({
    description: 'Repeating a request with the same key returns the first message instead of sending again',
    example: 'order-4711-sms',
  }),
});

/** Everything of the route of POST /sms and POST /chatapp but its method, path and summary. */
export const sendMessageRoute = {
  tags: ['Messages'],
  description:
    'Validates and accepts the message at once; a workflow hands it to the carrier at the scheduled time, ' +
    'waits for the delivery receipt and POSTs the delivery report to `dlrUrl`.',
  request: {
    headers: idempotencyHeaderSchema,
    body: { required: true, content: { 'application/json': { schema: messageRequestSchema } } },
  },
  responses: {
    202: { description: 'Accepted', content: { 'application/json': { schema: acceptedMessageSchema } } },
    ...errorResponses,
    422: {
      description:
        '`idempotency_key_reused`: the Idempotency-Key was used for a request with another body; ' +
        '`sender_id_not_approved`: the sender ID is not approved for this account; ' +
        '`number_not_verified`: the `from` number is not verified by this account (POST /numbers)',
      content: errorResponses[400].content,
    },
  },
};

type Channel = 'sms' | 'chatapp';
type MessageRequest = z.infer<typeof messageRequestSchema>;

interface ValidatedMessage {
  to: string;
  encoding: 'GSM-7' | 'UCS-2' | 'UTF-8';
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
  await assertUsableSender(deps.db, accountId, body.from);

  let encoding: ValidatedMessage['encoding'] = 'UTF-8';
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
 * Accepts a message: checks it, records it (once per idempotency key) and starts its workflow.
 * A repeated request with the same key answers the first message.
 */
export async function acceptMessage(
  deps: UseCaseDeps,
  accountId: string,
  channel: Channel,
  body: MessageRequest,
  idempotencyKey: string | undefined,
) {
  const checked = await validateMessage(deps, accountId, channel, body);
  const now = new Date();
  const waits = checked.scheduled !== undefined && checked.scheduled.getTime() > now.getTime();
  const [inserted] = await deps.db
    .insert(messagingMessages)
    .values({
      id: randomUUID(),
      accountId,
      channel,
      to: checked.to,
      from: body.from,
      message: body.message,
      encoding: checked.encoding,
      parts: checked.parts,
      dlrUrl: body.dlrUrl ?? null,
      scheduled: checked.scheduled ?? null,
      status: waits ? 'scheduled' : 'accepted',
      idempotencyKey: idempotencyKey ?? null,
    })
    .onConflictDoNothing()
    .returning();
  const row =
    inserted ??
    (
      await deps.db
        .select()
        .from(messagingMessages)
        .where(
          and(
            eq(messagingMessages.accountId, accountId),
            eq(messagingMessages.idempotencyKey, idempotencyKey ?? ''),
          ),
        )
    )[0];
  if (!row) throw new Error('message neither inserted nor found');
  // The key is bound to the whole request: every field (scheduled and dlrUrl too) must match.
  if (
    !inserted &&
    (row.channel !== channel ||
      row.to !== checked.to ||
      row.from !== body.from ||
      row.message !== body.message ||
      (row.scheduled?.getTime() ?? null) !== (checked.scheduled?.getTime() ?? null) ||
      row.dlrUrl !== (body.dlrUrl ?? null))
  ) {
    // 422 as the IETF Idempotency-Key draft answers a key reused with another payload.
    throw new Refusal(422, 'idempotency_key_reused', 'This Idempotency-Key was used for a different message');
  }

  // Starting is idempotent by workflow id: a replayed request (same key) cannot send twice, and it
  // repairs a first attempt whose start did not reach Temporal.
  const input: MessageDeliveryInput = {
    messageId: row.id,
    accountId,
    channel,
    to: row.to,
    from: row.from,
    message: row.message,
    parts: row.parts,
    receiptTimeoutMs: deps.config.SMS_RECEIPT_TIMEOUT,
    submitTimeoutMs: deps.config.SMS_SUBMIT_TIMEOUT,
    ...(row.scheduled ? { scheduled: row.scheduled.toISOString() } : {}),
    ...(row.dlrUrl ? { dlrUrl: row.dlrUrl } : {}),
  };
  try {
    await deps.temporal.workflow.start(messageDelivery, {
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      workflowId: messageWorkflowId(row.id),
      args: [input],
      typedSearchAttributes: [
        { key: PlatformService, value: 'messaging' },
        { key: OwnerId, value: accountId },
      ],
      staticSummary: `${channel.toUpperCase()} to ${row.to} (${row.parts} part${row.parts === 1 ? '' : 's'})`,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return {
    id: row.id,
    status: row.status === 'scheduled' ? ('scheduled' as const) : ('accepted' as const),
    to: row.to,
    from: row.from,
    encoding: row.encoding,
    parts: row.parts,
    scheduled: row.scheduled?.toISOString() ?? null,
    dlrUrl: row.dlrUrl,
    createdAt: row.createdAt.toISOString(),
  };
}
