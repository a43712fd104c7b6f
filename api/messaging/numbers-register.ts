import { randomUUID } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import { eq, sql } from 'drizzle-orm';
import type { UseCaseDeps } from '../../application/shared/deps.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import { messagingSenderNumbers } from '../../db/schema/messaging.ts';
import { normaliseNumber } from '../../domain/messaging/phone.ts';
import {
  type NumberVerificationInput,
  numberVerificationWorkflowId,
} from '../../domain/messaging/processes.ts';
import { OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import { numberVerification } from '../../workflows/messaging/numbers.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineMessagingOperation } from './auth.ts';
import { alreadyVerified, senderNumberSchema, toNumberRecord } from './numbers-records.ts';

/**
 * `POST /numbers` (a design addition beyond the spec, decision 0028): sends a verification code by SMS
 * to a number the account wants to send `from`, through the workflow `numbers-<challengeId>`. Asking
 * again gives a new code only once the current one has expired or used up its attempts.
 */
async function requestCode(deps: UseCaseDeps, accountId: string, body: { number: string }) {
  const parsed = normaliseNumber(body.number);
  if (!parsed) throw Refusal.field('number', 'not a valid phone number in international format');
  const number = parsed.e164;
  const { config } = deps;
  const now = new Date();
  const challengeId = randomUUID();
  const codeExpiresAt = new Date(now.getTime() + config.NUMBER_VERIFICATION_TIMEOUT);

  const n = messagingSenderNumbers;
  const [row] = await deps.db
    .insert(n)
    .values({ id: randomUUID(), accountId, number, status: 'pending', challengeId, codeExpiresAt })
    .onConflictDoUpdate({
      target: [n.accountId, n.number],
      set: { challengeId, codeExpiresAt, codeDigest: null, attempts: 0 },
      // A live code (not expired, attempts left) is not replaced: guessing stays bounded per code.
      setWhere: sql`${n.status} = 'pending' and (${n.codeExpiresAt} is null or ${n.codeExpiresAt} <= ${now.toISOString()} or ${n.attempts} >= ${config.NUMBER_VERIFICATION_MAX_ATTEMPTS})`,
    })
    .returning();
  if (!row) {
    const [existing] = await deps.db
      .select()
      .from(n)
      .where(sql`${n.accountId} = ${accountId} and ${n.number} = ${number}`);
    if (existing?.status === 'verified') throw alreadyVerified(number);
    throw Refusal.conflict(
      'verification_code_pending',
      `A code sent to ${number} is valid until ${existing?.codeExpiresAt?.toISOString()}; enter it with POST /numbers/{id}/verify, or ask again after then`,
    );
  }

  const input: NumberVerificationInput = {
    numberId: row.id,
    challengeId,
    accountId,
    number,
    from: config.NUMBER_VERIFICATION_SENDER,
    expiresAt: codeExpiresAt.toISOString(),
  };
  try {
    await deps.temporal.workflow.start(numberVerification, {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowId: numberVerificationWorkflowId(challengeId),
      args: [input],
      typedSearchAttributes: [
        { key: PlatformService, value: 'messaging' },
        { key: OwnerId, value: accountId },
      ],
      staticSummary: `Verification code to ${number}`,
    });
  } catch (error) {
    // No code will come: let the account ask again at once.
    await deps.db.update(n).set({ codeExpiresAt: now }).where(eq(n.challengeId, challengeId));
    throw error;
  }
  return toNumberRecord(row, config);
}

export const numbersRegisterOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/numbers',
      tags: ['Sender numbers'],
      summary: 'Send a verification code to a `from` number',
      description:
        'Beyond the spec. Messages may come `from` a phone number only after the account proved it owns it: this sends ' +
        'a six-digit code by SMS to the number; enter it with POST /numbers/{id}/verify before `codeExpiresAt`. ' +
        'Asking again sends a new code once the current one has expired or has no attempts left ' +
        '(409 `verification_code_pending` before); 409 `number_already_verified` for a verified number.',
      request: {
        body: jsonBody(
          z
            .object({
              number: z
                .string()
                .min(1)
                .max(32)
                .openapi({ description: 'The number, international format', example: '+359888000111' }),
            })
            .openapi('SenderNumberRequest'),
        ),
      },
      responses: {
        202: {
          description: 'The code is being sent',
          content: { 'application/json': { schema: senderNumberSchema } },
        },
        ...errorResponses,
        409: { description: 'Conflict; `code` says which', content: errorResponses[400].content },
      },
    }),
  handler: () => async (c) =>
    c.json(await requestCode(c.get('deps'), c.get('accountId'), c.req.valid('json')), 202),
});
