import { randomUUID } from 'node:crypto';
import { and, desc, eq, lt, sql } from 'drizzle-orm';
import { verificationCodeMatches } from '../../credentials/messaging/senders.ts';
import { messagingSenderNumbers } from '../../db/schema/messaging.ts';
import {
  type NumberVerificationInput,
  numberVerificationWorkflowId,
} from '../../domain/messaging/processes.ts';
import { normaliseNumber } from '../../domain/phone-numbers.ts';
import { OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import type { numberVerification } from '../../workflows/messaging/numbers.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { offsetOf, type Page } from './page.ts';

/**
 * `from` numbers of an account (a design addition beyond the spec, decision 0028): the account asks for a
 * code to be sent to a number (POST /numbers), proves it owns the number by entering the code
 * (POST /numbers/{id}/verify), and may then send `from` it. A code is valid for
 * NUMBER_VERIFICATION_TIMEOUT and NUMBER_VERIFICATION_MAX_ATTEMPTS tries; only its digest is stored.
 */

type NumberRow = typeof messagingSenderNumbers.$inferSelect;
export type SenderNumberStatus = NumberRow['status'];

/** A `from` number as its account sees it. */
export interface SenderNumberRecord {
  id: string;
  number: string;
  status: SenderNumberStatus;
  codeExpiresAt: string | null;
  attemptsLeft: number;
  createdAt: string;
  verifiedAt: string | null;
}

const toNumberRecord = (row: NumberRow, deps: UseCaseDeps): SenderNumberRecord => ({
  id: row.id,
  number: row.number,
  status: row.status,
  codeExpiresAt: row.status === 'verified' ? null : (row.codeExpiresAt?.toISOString() ?? null),
  attemptsLeft:
    row.status === 'verified' ? 0 : Math.max(0, deps.config.NUMBER_VERIFICATION_MAX_ATTEMPTS - row.attempts),
  createdAt: row.createdAt.toISOString(),
  verifiedAt: row.verifiedAt?.toISOString() ?? null,
});

const alreadyVerified = (number: string) =>
  Refusal.conflict('number_already_verified', `${number} is already verified for this account`);

/** The number with this id of the account; 404 otherwise. */
async function findOwnNumber(deps: UseCaseDeps, accountId: string, id: string): Promise<NumberRow> {
  const [row] = await deps.db
    .select()
    .from(messagingSenderNumbers)
    .where(and(eq(messagingSenderNumbers.id, id), eq(messagingSenderNumbers.accountId, accountId)));
  if (!row) throw Refusal.notFound('Number');
  return row;
}

/**
 * Sends a verification code by SMS to a number the account wants to send `from`, through the workflow
 * `numbers-<challengeId>`. Asking again gives a new code only once the current one has expired or used
 * up its attempts.
 */
export async function registerNumber(
  deps: UseCaseDeps,
  { accountId, number: requested }: { accountId: string; number: string },
): Promise<SenderNumberRecord> {
  const parsed = normaliseNumber(requested);
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
    await deps.temporal.workflow.start<typeof numberVerification>('numberVerification', {
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
  return toNumberRecord(row, deps);
}

const refused = (code: string, message: string) =>
  new Refusal(422, code, message, [{ field: 'code', message }]);

/**
 * Proves the account owns the number with the code sent to it. Every try is counted before the code is
 * compared (one atomic update), so concurrent tries cannot exceed NUMBER_VERIFICATION_MAX_ATTEMPTS.
 */
export async function verifyNumber(
  deps: UseCaseDeps,
  { accountId, id, code }: { accountId: string; id: string; code: string },
): Promise<SenderNumberRecord> {
  const { db, config } = deps;
  const n = messagingSenderNumbers;
  const row = await findOwnNumber(deps, accountId, id);
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
    const now = await findOwnNumber(deps, accountId, id);
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
  return toNumberRecord(verified ?? (await findOwnNumber(deps, accountId, id)), deps);
}

/** The account's `from` numbers (in one status if given), newest first. */
export async function listNumbers(
  deps: UseCaseDeps,
  input: { accountId: string; status?: SenderNumberStatus | undefined; page: number; size: number },
): Promise<Page<SenderNumberRecord>> {
  const { accountId, status, page, size } = input;
  const conditions = [eq(messagingSenderNumbers.accountId, accountId)];
  if (status) conditions.push(eq(messagingSenderNumbers.status, status));
  const rows = await deps.db
    .select()
    .from(messagingSenderNumbers)
    .where(and(...conditions))
    .orderBy(desc(messagingSenderNumbers.createdAt), desc(messagingSenderNumbers.id))
    .limit(size)
    .offset(offsetOf(page, size));
  return { page, size, items: rows.map((row) => toNumberRecord(row, deps)) };
}
