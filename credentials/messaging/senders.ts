import { createHmac, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { type Client, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import { and, asc, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { messagingSenderIds, messagingSenderNumbers } from '../../db/schema/messaging.ts';
import {
  decideSenderIdUpdate,
  type SenderIdDecision,
  SenderIdRefusal,
  senderIdWorkflowId,
} from '../../domain/messaging/processes.ts';

/**
 * What an account may send `from` (decision 0028): sender IDs an operator approved, and phone numbers
 * the account proved it owns with a code sent to them by SMS. The operator's decision (admin API,
 * `npm run admin`), the codes' digests, and the direct grant used for the sandbox account and tests.
 */

type SenderIdRow = typeof messagingSenderIds.$inferSelect;

/** The registration does not exist, or is not confirmed-and-waiting for a decision. */
export class SenderIdDecisionRefused extends Error {
  constructor(
    readonly code: 'not_found' | 'sender_id_not_awaiting_approval',
    message: string,
  ) {
    super(message);
  }
}

const notAwaiting = (row: SenderIdRow) =>
  new SenderIdDecisionRefused(
    'sender_id_not_awaiting_approval',
    `The sender ID is ${row.status}; only a confirmed registration can be approved or rejected`,
  );

async function registration(db: Database, id: string): Promise<SenderIdRow> {
  const [row] = await db.select().from(messagingSenderIds).where(eq(messagingSenderIds.id, id));
  if (!row) throw new SenderIdDecisionRefused('not_found', 'Sender ID not found');
  return row;
}

/**
 * Records an operator's approval or rejection of a confirmed registration through its workflow
 * (`sender-id-<id>`), and answers the registration as it is then.
 */
export async function decideSenderId(
  deps: { db: Database; temporal: Client },
  id: string,
  decision: SenderIdDecision,
): Promise<SenderIdRow> {
  const row = await registration(deps.db, id);
  if (row.status !== 'confirmed') throw notAwaiting(row);
  try {
    await deps.temporal.workflow.getHandle(senderIdWorkflowId(id)).executeUpdate(decideSenderIdUpdate, {
      args: [decision],
    });
  } catch (error) {
    const refused =
      error instanceof WorkflowUpdateFailedError &&
      error.cause instanceof ApplicationFailure &&
      error.cause.type === SenderIdRefusal.notAwaitingApproval;
    if (refused) throw notAwaiting(await registration(deps.db, id));
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    // A registration confirmed before the approval step existed: its workflow has ended, so the
    // decision is written to the read model directly (still only from `confirmed`).
    const [decided] = await deps.db
      .update(messagingSenderIds)
      .set({
        status: decision.decision,
        decidedAt: new Date(),
        decisionReason: decision.reason,
        operatorNote: decision.note ?? null,
      })
      .where(and(eq(messagingSenderIds.id, id), eq(messagingSenderIds.status, 'confirmed')))
      .returning();
    if (!decided) throw notAwaiting(await registration(deps.db, id));
    return decided;
  }
  return registration(deps.db, id);
}

/** Registrations confirmed by their accounts and waiting for an operator, oldest confirmation first. */
export function senderIdsAwaitingApproval(db: Database, limit = 100): Promise<SenderIdRow[]> {
  return db
    .select()
    .from(messagingSenderIds)
    .where(eq(messagingSenderIds.status, 'confirmed'))
    .orderBy(asc(messagingSenderIds.confirmedAt), asc(messagingSenderIds.id))
    .limit(limit);
}

/**
 * Grants an account senders without the proof: numbers as verified, sender IDs as approved with
 * `reason`. For the sandbox account (`npm start`) and test accounts only; nothing in the API calls it.
 * Idempotent: what the account already has is left as it is.
 */
export async function grantSenders(
  db: Database,
  accountId: string,
  grant: { numbers?: readonly string[]; senderIds?: readonly string[]; reason: string },
): Promise<void> {
  const now = new Date();
  for (const number of grant.numbers ?? []) {
    await db
      .insert(messagingSenderNumbers)
      .values({ id: randomUUID(), accountId, number, status: 'verified', verifiedAt: now })
      .onConflictDoNothing();
  }
  for (const senderId of grant.senderIds ?? []) {
    await db
      .insert(messagingSenderIds)
      .values({
        id: randomUUID(),
        accountId,
        senderId,
        description: grant.reason,
        status: 'approved',
        createdAt: now,
        expiresAt: now,
        confirmedAt: now,
        decidedAt: now,
        decisionReason: grant.reason,
      })
      .onConflictDoNothing();
  }
}

// --- verification codes of `from` numbers ------------------------------------------------------------

/** Six random digits. */
export const newVerificationCode = () => String(randomInt(0, 1_000_000)).padStart(6, '0');

/** The stored form of a code: HMAC-SHA-256 keyed by its challenge id (hex). */
export const verificationCodeDigest = (challengeId: string, code: string) =>
  createHmac('sha256', challengeId).update(code.trim()).digest('hex');

/** Whether `code` is the one whose digest was stored; constant time (digests have equal length). */
export function verificationCodeMatches(challengeId: string, code: string, storedDigest: string): boolean {
  const presented = Buffer.from(verificationCodeDigest(challengeId, code), 'hex');
  const stored = Buffer.from(storedDigest, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
