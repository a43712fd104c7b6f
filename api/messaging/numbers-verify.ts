import { createRoute, z } from '@hono/zod-openapi';
import { and, eq, lt, sql } from 'drizzle-orm';
import type { UseCaseDeps } from '../../application/shared/deps.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import { verificationCodeMatches } from '../../credentials/messaging/senders.ts';
import { messagingSenderNumbers } from '../../db/schema/messaging.ts';
import { errorResponses } from '../shared/errors.ts';
import { jsonBody } from '../shared/openapi.ts';
import { defineMessagingOperation } from './auth.ts';
import {
  alreadyVerified,
  findOwnNumber,
  numberIdParams,
  senderNumberSchema,
  toNumberRecord,
} from './numbers-records.ts';

/**
 * `POST /numbers/{id}/verify` (a design addition beyond the spec, decision 0028): proves the account owns
 * the number with the code sent to it. Every try is counted before the code is compared (one atomic
 * update), so concurrent tries cannot exceed NUMBER_VERIFICATION_MAX_ATTEMPTS.
 */
const refused = (code: string, message: string) =>
  new Refusal(422, code, message, [{ field: 'code', message }]);

async function verify(deps: UseCaseDeps, accountId: string, id: string, code: string) {
  const { db, config } = deps;
  const n = messagingSenderNumbers;
  const row = await findOwnNumber(db, accountId, id);
  if (row.status === 'verified') throw alreadyVerified(row.number);
  const expired = refused(
    'verification_code_expired',
    'The code has expired; ask for a new one with POST /numbers',
  );
  if (!row.challengeId || !row.codeExpiresAt || row.codeExpiresAt.getTime() <= Date.now()) throw expired;

  const max = config.NUMBER_VERIFICATION_MAX_ATTEMPTS;
  const [counted] = await db
    .update(n)
    .set({ attempts: sql`${n.attempts} + 1` })
    .where(
      and(eq(n.id, row.id), eq(n.challengeId, row.challengeId), eq(n.status, 'pending'), lt(n.attempts, max)),
    )
    .returning();
  if (!counted) {
    const now = await findOwnNumber(db, accountId, id);
    if (now.status === 'verified') throw alreadyVerified(row.number);
    if (now.challengeId !== row.challengeId) throw expired; // replaced by a newer code meanwhile
    throw refused(
      'verification_attempts_exceeded',
      'Too many wrong codes; ask for a new one with POST /numbers once this one expires',
    );
  }
  const right =
    counted.codeDigest !== null && verificationCodeMatches(row.challengeId, code, counted.codeDigest);
  if (!right) {
    const left = Math.max(0, max - counted.attempts);
    throw refused(
      'verification_code_wrong',
      left > 0
        ? `Wrong code; ${left} attempt${left === 1 ? '' : 's'} left`
        : 'Wrong code; no attempts left: ask for a new one with POST /numbers once this one expires',
    );
  }
  const [verified] = await db
    .update(n)
    .set({ status: 'verified', verifiedAt: new Date(), codeDigest: null })
    .where(and(eq(n.id, row.id), eq(n.challengeId, row.challengeId), eq(n.status, 'pending')))
    .returning();
  return toNumberRecord(verified ?? (await findOwnNumber(db, accountId, id)), config);
}

export const numbersVerifyOperation = defineMessagingOperation({
  route: () =>
    createRoute({
      method: 'post',
      path: '/numbers/{id}/verify',
      tags: ['Sender numbers'],
      summary: 'Prove a `from` number with its code',
      description:
        'Beyond the spec. Verifies the number with the code sent to it by POST /numbers; from then on it may be used as ' +
        '`from`. 422 `verification_code_wrong` (the answer says how many attempts are left), ' +
        '`verification_code_expired`, `verification_attempts_exceeded`; 409 `number_already_verified`.',
      request: {
        params: numberIdParams,
        body: jsonBody(
          z
            .object({
              code: z
                .string()
                .regex(/^\d{6}$/, 'six digits')
                .openapi({ description: 'The code received by SMS', example: '482913' }),
            })
            .openapi('SenderNumberVerification'),
        ),
      },
      responses: {
        200: { description: 'Verified', content: { 'application/json': { schema: senderNumberSchema } } },
        ...errorResponses,
        409: { description: 'Already verified', content: errorResponses[400].content },
        422: { description: 'Wrong, expired or used-up code', content: errorResponses[400].content },
      },
    }),
  handler: () => async (c) =>
    c.json(
      await verify(c.get('deps'), c.get('accountId'), c.req.valid('param').id, c.req.valid('json').code),
      200,
    ),
});
