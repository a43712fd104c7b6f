import { randomUUID } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import { eq } from 'drizzle-orm';
import type { UseCaseDeps } from '../../application/shared/deps.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import { messagingSenderIds } from '../../db/schema/messaging.ts';
import { isAlphanumericSender, normaliseNumber } from '../../domain/messaging/phone.ts';
import { type SenderIdRegistrationInput, senderIdWorkflowId } from '../../domain/messaging/processes.ts';
import { BusinessStatus, OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import { senderIdRegistration } from '../../workflows/messaging/sender-id.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineMessagingOperation } from './auth.ts';
import { conflictResponse, looksNumeric, senderIdSchema, toRecord } from './sender-id-records.ts';

/** `POST /senderId`: registers a sender ID; the registration workflow (`sender-id-<id>`) expires it unless confirmed. */

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

async function register(
  deps: UseCaseDeps,
  accountId: string,
  body: { senderId: string; description?: string | undefined },
) {
  const problem = senderIdProblem(body.senderId);
  if (problem) throw Refusal.field('senderId', problem);
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
    // The partial unique index allows one live (pending, confirmed, approved) registration per sender ID and account.
    .onConflictDoNothing()
    .returning();
  if (!row)
    throw Refusal.conflict('sender_id_exists', `"${senderId}" is already registered for this account`);

  const input: SenderIdRegistrationInput = {
    registrationId: row.id,
    accountId,
    senderId,
    expiresAt: row.expiresAt.toISOString(),
    approvalTimeoutMs: deps.config.SENDER_ID_APPROVAL_TIMEOUT,
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

export const senderIdRegisterOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/senderId',
      tags: ['Sender IDs'],
      summary: 'Register a sender ID',
      description:
        'Registers an alphanumeric sender (1-11 letters, digits, spaces, `. - _ &`) or a phone number as a sender of this ' +
        'account. The registration is pending until confirmed with POST /senderId/confirm/{id} and expires at `expiresAt`; ' +
        'once confirmed it waits for an operator to approve it, and only then may it be used as `from`. ' +
        'Registering a sender ID that is already pending, confirmed or approved answers 409 `sender_id_exists`.',
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
    }),
  handler: () => async (c) =>
    c.json(await register(c.get('deps'), c.get('accountId'), c.req.valid('json')), 202),
});
