import { randomUUID } from 'node:crypto';
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import { and, desc, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { messagingSenderIds } from '../../db/schema/messaging.ts';
import { isAlphanumericSender, normaliseNumber } from '../../domain/messaging/phone.ts';
import { BusinessStatus, OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import {
  confirmSenderIdUpdate,
  SenderIdRefusal,
  type SenderIdRegistrationInput,
  senderIdRegistration,
  senderIdWorkflowId,
} from '../../workflows/messaging/sender-id-registration.ts';
import type { ApiDeps } from '../shared/context.ts';
import { ApiError, errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import type { MessagingEnv } from './auth.ts';

/**
 * Sender IDs: an account registers the name (or number) its messages come from, confirms it, and
 * only then may send from an alphanumeric sender. An unconfirmed registration expires after
 * SENDER_ID_CONFIRMATION_TIMEOUT; the registration workflow (`sender-id-<id>`) owns that deadline.
 */

const looksNumeric = (value: string) => /^(\+|00)?\d+$/.test(value);

/** What is wrong with a requested sender ID, or undefined when it is usable. */
function senderIdProblem(value: string): string | undefined {
  if (looksNumeric(value)) {
    return normaliseNumber(value)
      ? undefined
      : 'a numeric sender ID must be a valid phone number in international format';
  }
  if (isAlphanumericSender(value)) return undefined;
  if (value.length > 11) return 'an alphanumeric sender ID has at most 11 characters';
  return 'may contain only letters, digits, spaces and . - _ & (at least one letter), or be a phone number';
}

/**
 * Refuses `from` when it is an alphanumeric sender that is not a confirmed sender ID of the account.
 * Phone-number senders need no registration. Called by POST /sms and POST /chatapp.
 */
export async function assertUsableSender(db: Database, accountId: string, from: string): Promise<void> {
  if (looksNumeric(from)) return;
  const [confirmed] = await db
    .select({ id: messagingSenderIds.id })
    .from(messagingSenderIds)
    .where(
      and(
        eq(messagingSenderIds.accountId, accountId),
        eq(messagingSenderIds.senderId, from),
        eq(messagingSenderIds.status, 'confirmed'),
      ),
    )
    .limit(1);
  if (!confirmed) {
    const message = `"${from}" is not a confirmed sender ID of this account; register it with POST /senderId and confirm it`;
    throw new ApiError(422, 'sender_id_not_confirmed', message, [{ field: 'from', message }]);
  }
}

const senderIdSchema = z
  .object({
    id: z
      .string()
      .openapi({ description: 'Id of the registration', example: '7d3b6a0e-4a43-4f0b-9a55-1f1b3c0b7f21' }),
    senderId: z.string().openapi({ description: 'The sender as it appears on the handset', example: 'ACME' }),
    description: z.string().nullable().openapi({ example: 'Order notifications' }),
    status: z.enum(['pending', 'confirmed', 'expired']).openapi({
      description:
        'pending → confirmed (POST /senderId/confirm/{id}), or pending → expired when not confirmed in time',
    }),
    createdAt: z.string().openapi({ example: '2026-11-23T09:00:00.000Z' }),
    expiresAt: z
      .string()
      .openapi({ description: 'A pending registration must be confirmed before this time' }),
    confirmedAt: z.string().nullable(),
  })
  .openapi('SenderId');

type SenderIdRecord = z.infer<typeof senderIdSchema>;

const toRecord = (row: typeof messagingSenderIds.$inferSelect): SenderIdRecord => ({
  id: row.id,
  senderId: row.senderId,
  description: row.description,
  status: row.status,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt.toISOString(),
  confirmedAt: row.confirmedAt?.toISOString() ?? null,
});

const conflictResponse = { description: 'Conflict; `code` says which', content: errorResponses[400].content };
const idParams = z.object({ id: z.uuid().openapi({ param: { name: 'id', in: 'path' } }) });

const registerRoute = createRoute({
  method: 'post',
  path: '/senderId',
  tags: ['Sender IDs'],
  summary: 'Register a sender ID',
  description:
    'Registers an alphanumeric sender (1-11 letters, digits, spaces, `. - _ &`) or a phone number as a sender of this ' +
    'account. The registration is pending until confirmed with POST /senderId/confirm/{id} and expires at `expiresAt`. ' +
    'Registering a sender ID that is already pending or confirmed answers 409 `sender_id_exists`.',
  request: {
    body: jsonBody(
      z
        .object({
          senderId: z
            .string()
            .min(1)
            .max(32)
            .openapi({ description: 'Alphanumeric sender or phone number', example: 'ACME' }),
          description: z.string().max(200).optional().openapi({ example: 'Order notifications' }),
        })
        .openapi('SenderIdRequest'),
    ),
  },
  responses: {
    202: {
      description: 'Registered, waiting for confirmation',
      content: { 'application/json': { schema: senderIdSchema } },
    },
    ...errorResponses,
    409: conflictResponse,
  },
});

const confirmRoute = createRoute({
  method: 'post',
  path: '/senderId/confirm/{id}',
  tags: ['Sender IDs'],
  summary: 'Confirm a sender ID',
  description:
    'Confirms a pending registration; from then on the sender ID may be used as `from`. ' +
    '409 `sender_id_already_confirmed` or `sender_id_expired` when it is no longer pending.',
  request: { params: idParams },
  responses: {
    200: { description: 'Confirmed', content: { 'application/json': { schema: senderIdSchema } } },
    ...errorResponses,
    409: conflictResponse,
  },
});

const getRoute = createRoute({
  method: 'get',
  path: '/senderId/{id}',
  tags: ['Sender IDs'],
  summary: 'Get a sender ID registration',
  request: { params: idParams },
  responses: {
    200: { description: 'The registration', content: { 'application/json': { schema: senderIdSchema } } },
    ...errorResponses,
  },
});

const listRoute = createRoute({
  method: 'get',
  path: '/senderId',
  tags: ['Sender IDs'],
  summary: 'List sender IDs',
  description: 'Registrations of your account, newest first.',
  request: {
    query: z.object({
      status: z.enum(['pending', 'confirmed', 'expired']).optional().openapi({ example: 'confirmed' }),
      page: z.coerce.number().int().min(1).default(1).openapi({ example: 1 }),
      size: z.coerce.number().int().min(1).max(200).default(50).openapi({ example: 50 }),
    }),
  },
  responses: {
    200: {
      description: 'Sender IDs',
      content: {
        'application/json': {
          schema: z.object({ page: z.number(), size: z.number(), items: z.array(senderIdSchema) }),
        },
      },
    },
    ...errorResponses,
  },
});

async function findOwn(db: Database, accountId: string, id: string) {
  const [row] = await db
    .select()
    .from(messagingSenderIds)
    .where(and(eq(messagingSenderIds.id, id), eq(messagingSenderIds.accountId, accountId)));
  if (!row) throw ApiError.notFound('Sender ID');
  return row;
}

function refuseUnlessPending(row: typeof messagingSenderIds.$inferSelect, now: Date): void {
  if (row.status === 'confirmed') {
    throw ApiError.conflict('sender_id_already_confirmed', 'The sender ID is already confirmed');
  }
  if (row.status === 'expired' || row.expiresAt.getTime() <= now.getTime()) {
    throw ApiError.conflict('sender_id_expired', 'The sender ID registration has expired; register it again');
  }
}

async function register(
  deps: ApiDeps,
  accountId: string,
  body: { senderId: string; description?: string | undefined },
) {
  const problem = senderIdProblem(body.senderId);
  if (problem) throw ApiError.field('senderId', problem);
  const senderId = looksNumeric(body.senderId) ? normaliseNumber(body.senderId)!.e164 : body.senderId;

  const now = new Date();
  const [row] = await deps.db
    .insert(messagingSenderIds)
    .values({
      id: randomUUID(),
      accountId,
      senderId,
      description: body.description ?? null,
      status: 'pending',
      createdAt: now,
      expiresAt: new Date(now.getTime() + deps.config.SENDER_ID_CONFIRMATION_TIMEOUT),
    })
    // The partial unique index allows one pending or confirmed registration per sender ID and account.
    .onConflictDoNothing()
    .returning();
  if (!row)
    throw ApiError.conflict('sender_id_exists', `"${senderId}" is already registered for this account`);

  const input: SenderIdRegistrationInput = {
    registrationId: row.id,
    accountId,
    senderId,
    expiresAt: row.expiresAt.toISOString(),
  };
  try {
    await deps.temporal.workflow.start(senderIdRegistration, {
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      workflowId: senderIdWorkflowId(row.id),
      args: [input],
      typedSearchAttributes: [
        { key: PlatformService, value: 'messaging' },
        { key: OwnerId, value: accountId },
        { key: BusinessStatus, value: 'pending' },
      ],
      staticSummary: `Sender ID "${senderId}" waiting for confirmation`,
    });
  } catch (error) {
    // Without its workflow the registration could never expire: take it back so it can be retried.
    await deps.db.delete(messagingSenderIds).where(eq(messagingSenderIds.id, row.id));
    throw error;
  }
  return toRecord(row);
}

async function confirm(deps: ApiDeps, accountId: string, id: string): Promise<SenderIdRecord> {
  const row = await findOwn(deps.db, accountId, id);
  refuseUnlessPending(row, new Date());
  try {
    const { confirmedAt } = await deps.temporal.workflow
      .getHandle(senderIdWorkflowId(id))
      .executeUpdate(confirmSenderIdUpdate);
    return { ...toRecord(row), status: 'confirmed', confirmedAt };
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      if (error.cause.type === SenderIdRefusal.alreadyConfirmed)
        refuseUnlessPending({ ...row, status: 'confirmed' }, new Date());
      if (error.cause.type === SenderIdRefusal.expired)
        refuseUnlessPending({ ...row, status: 'expired' }, new Date());
    }
    // The workflow has just closed (confirmed or expired meanwhile): the read model says which.
    if (error instanceof WorkflowNotFoundError)
      refuseUnlessPending(await findOwn(deps.db, accountId, id), new Date());
    throw error;
  }
}

export function registerSenderIdRoutes(app: OpenAPIHono<MessagingEnv>): void {
  app.openapi(registerRoute, async (c) => {
    return c.json(await register(c.get('deps'), c.get('accountId'), c.req.valid('json')), 202);
  });

  app.openapi(confirmRoute, async (c) => {
    return c.json(await confirm(c.get('deps'), c.get('accountId'), c.req.valid('param').id), 200);
  });

  app.openapi(getRoute, async (c) => {
    return c.json(
      toRecord(await findOwn(c.get('deps').db, c.get('accountId'), c.req.valid('param').id)),
      200,
    );
  });

  app.openapi(listRoute, async (c) => {
    const { status, page, size } = c.req.valid('query');
    const conditions = [eq(messagingSenderIds.accountId, c.get('accountId'))];
    if (status) conditions.push(eq(messagingSenderIds.status, status));
    const rows = await c
      .get('deps')
      .db.select()
      .from(messagingSenderIds)
      .where(and(...conditions))
      .orderBy(desc(messagingSenderIds.createdAt), desc(messagingSenderIds.id))
      .limit(size)
      .offset((page - 1) * size);
    return c.json({ page, size, items: rows.map(toRecord) }, 200);
  });
}
