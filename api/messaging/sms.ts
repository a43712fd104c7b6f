import { randomUUID } from 'node:crypto';
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { and, asc, eq, gte, lt } from 'drizzle-orm';
import { messagingMessages } from '../../db/schema/messaging.ts';
import { MESSAGE_STATUSES, type MessageStatus } from '../../domain/messaging/delivery-receipt.ts';
import { isAlphanumericSender, normaliseNumber } from '../../domain/messaging/phone.ts';
import { countSegments, MAX_SMS_PARTS } from '../../domain/messaging/segments.ts';
import { OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import {
  type MessageDeliveryInput,
  messageDelivery,
  messageWorkflowId,
} from '../../workflows/messaging/message-delivery.ts';
import type { ApiDeps } from '../shared/context.ts';
import { ApiError, errorResponses } from '../shared/errors.ts';
import type { MessagingEnv } from './auth.ts';
import { assertUsableSender } from './sender-ids.ts';

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
        'Sender: a phone number, or an alphanumeric sender ID (1-11 characters) confirmed for your account',
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

const scheduledMessageSchema = z
  .object({
    id: z.string(),
    scheduled: z.string().openapi({ example: '2026-12-01T09:00:00.000Z' }),
    from: z.string(),
    to: z.string(),
    message: z.string(),
    dlrUrl: z.string().nullable(),
  })
  .openapi('ScheduledMessage');

type Channel = 'sms' | 'chatapp';
type MessageRequest = z.infer<typeof messageRequestSchema>;

function sendRoute(channel: Channel) {
  return createRoute({
    method: 'post',
    path: channel === 'sms' ? '/sms' : '/chatapp',
    tags: ['Messages'],
    summary: channel === 'sms' ? 'Send an SMS' : 'Send a chat-app message',
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
      409: {
        description: 'Idempotency key reused with another request',
        content: errorResponses[400].content,
      },
      422: { description: 'Sender ID not confirmed for this account', content: errorResponses[400].content },
    },
  });
}

const listScheduledRoute = createRoute({
  method: 'get',
  path: '/sms',
  tags: ['Messages'],
  summary: 'List scheduled messages',
  description: 'Messages of your account that wait for their scheduled time, earliest first.',
  request: {
    query: z.object({
      scheduled: z.iso.date().optional().openapi({
        description: 'Only messages scheduled on this UTC day (YYYY-MM-DD)',
        example: '2026-12-01',
      }),
      page: z.coerce.number().int().min(1).default(1).openapi({ example: 1 }),
      size: z.coerce.number().int().min(1).max(200).default(50).openapi({ example: 50 }),
    }),
  },
  responses: {
    200: {
      description: 'Scheduled messages',
      content: {
        'application/json': {
          schema: z.object({ page: z.number(), size: z.number(), items: z.array(scheduledMessageSchema) }),
        },
      },
    },
    ...errorResponses,
  },
});

const messageSchema = z
  .object({
    id: z.string(),
    channel: z.enum(['sms', 'chatapp']),
    status: z
      .enum(MESSAGE_STATUSES)
      .openapi({ description: 'accepted → scheduled → sending → submitted → a final status' }),
    to: z.string(),
    from: z.string(),
    message: z.string(),
    encoding: z.enum(['GSM-7', 'UCS-2', 'UTF-8']),
    parts: z.number().int(),
    scheduled: z.string().nullable(),
    dlrUrl: z.string().nullable(),
    error: z.string().nullable().openapi({ description: 'Carrier error code or reason of a failed message' }),
    createdAt: z.string(),
    submittedAt: z.string().nullable(),
    doneAt: z.string().nullable(),
  })
  .openapi('Message');

const getMessageRoute = createRoute({
  method: 'get',
  path: '/sms/{id}',
  tags: ['Messages'],
  summary: 'Get a message and its delivery status',
  description: 'Any message of your account (SMS or chat-app), from the read model.',
  request: { params: z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) }) },
  responses: {
    200: { description: 'The message', content: { 'application/json': { schema: messageSchema } } },
    ...errorResponses,
  },
});

interface ValidatedMessage {
  to: string;
  encoding: 'GSM-7' | 'UCS-2' | 'UTF-8';
  parts: number;
  scheduled: Date | undefined;
}

/** Checks what the schema cannot: a real recipient number, a usable sender, the length, the schedule. */
async function validateMessage(
  deps: ApiDeps,
  accountId: string,
  channel: Channel,
  body: MessageRequest,
): Promise<ValidatedMessage> {
  const recipient = normaliseNumber(body.to);
  if (!recipient) throw ApiError.field('to', 'not a valid phone number in international format');
  if (!isAlphanumericSender(body.from) && !normaliseNumber(body.from)) {
    throw ApiError.field('from', 'must be a phone number or an alphanumeric sender ID of 1-11 characters');
  }
  await assertUsableSender(deps.db, accountId, body.from);

  let encoding: ValidatedMessage['encoding'] = 'UTF-8';
  let parts = 1;
  if (channel === 'sms') {
    ({ encoding, parts } = countSegments(body.message));
    if (parts > MAX_SMS_PARTS) {
      throw ApiError.field('message', `too long: ${parts} segments, at most ${MAX_SMS_PARTS} (${encoding})`);
    }
  } else if (body.message.length > MAX_CHATAPP_LENGTH) {
    throw ApiError.field('message', `too long: at most ${MAX_CHATAPP_LENGTH} characters`);
  }

  const scheduled = body.scheduled ? new Date(body.scheduled) : undefined;
  if (scheduled && scheduled.getTime() > Date.now() + MAX_SCHEDULE_AHEAD_MS) {
    throw ApiError.field('scheduled', 'must be at most one year ahead');
  }
  return { to: recipient.e164, encoding, parts, scheduled };
}

async function acceptMessage(
  deps: ApiDeps,
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
  if (
    !inserted &&
    (row.channel !== channel ||
      row.to !== checked.to ||
      row.from !== body.from ||
      row.message !== body.message)
  ) {
    throw ApiError.conflict(
      'idempotency_key_reused',
      'This Idempotency-Key was used for a different message',
    );
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

export function registerSmsRoutes(app: OpenAPIHono<MessagingEnv>): void {
  for (const channel of ['sms', 'chatapp'] as const) {
    app.openapi(sendRoute(channel), async (c) => {
      const accepted = await acceptMessage(
        c.get('deps'),
        c.get('accountId'),
        channel,
        c.req.valid('json'),
        c.req.valid('header')['idempotency-key'],
      );
      return c.json(accepted, 202);
    });
  }

  app.openapi(getMessageRoute, async (c) => {
    const [row] = await c
      .get('deps')
      .db.select()
      .from(messagingMessages)
      .where(
        and(
          eq(messagingMessages.id, c.req.valid('param').id),
          eq(messagingMessages.accountId, c.get('accountId')),
        ),
      );
    if (!row) throw ApiError.notFound('Message');
    return c.json(
      {
        id: row.id,
        channel: row.channel,
        status: row.status as MessageStatus,
        to: row.to,
        from: row.from,
        message: row.message,
        encoding: row.encoding,
        parts: row.parts,
        scheduled: row.scheduled?.toISOString() ?? null,
        dlrUrl: row.dlrUrl,
        error: row.error,
        createdAt: row.createdAt.toISOString(),
        submittedAt: row.submittedAt?.toISOString() ?? null,
        doneAt: row.doneAt?.toISOString() ?? null,
      },
      200,
    );
  });

  app.openapi(listScheduledRoute, async (c) => {
    const { scheduled, page, size } = c.req.valid('query');
    const conditions = [
      eq(messagingMessages.accountId, c.get('accountId')),
      eq(messagingMessages.status, 'scheduled'),
    ];
    if (scheduled) {
      const dayStart = new Date(`${scheduled}T00:00:00Z`);
      conditions.push(
        gte(messagingMessages.scheduled, dayStart),
        lt(messagingMessages.scheduled, new Date(dayStart.getTime() + 86_400_000)),
      );
    }
    const rows = await c
      .get('deps')
      .db.select()
      .from(messagingMessages)
      .where(and(...conditions))
      .orderBy(asc(messagingMessages.scheduled), asc(messagingMessages.id))
      .limit(size)
      .offset((page - 1) * size);
    return c.json(
      {
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
      },
      200,
    );
  });
}
