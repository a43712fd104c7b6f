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
import { credentialCache } from '../shared/credential-cache.ts';

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

/**
 * Who may send from what, cached in each process like the credentials (decision 0065, 0073): every accept
 * asks, so without the cache that is a query (two for a number) per message. Only "usable" is
 * remembered; a refusal asks the database again, so an approval or a verification counts at once.
 * Migration 0016_sender_id_notify notifies on every update or delete of both tables, so a sender ID or number that stops
 * being usable (rejected, revoked, deleted, by any process or an operator's SQL) is forgotten by every
 * process when the change commits; at most CREDENTIAL_CACHE_TTL_MS stale where notifications cannot arrive.
 */
const usableSenders = credentialCache<'approved' | 'verified'>({
  name: 'messaging-usable-senders',
  tables: [messagingSenderIds, messagingSenderNumbers],
});

/**
 * How `accountId` may send from `senderId` (an alphanumeric sender ID, or a number in E.164 when
 * `isNumber`): an approved sender ID, a verified number, or undefined when it may not.
 */
export function usableSender(
  db: Database,
  accountId: string,
  senderId: string,
  isNumber: boolean,
): Promise<'approved' | 'verified' | undefined> {
  return usableSenders.lookup(db, `${accountId}\n${senderId}`, async () => {
    const [approved] = await db
      .select({ id: messagingSenderIds.id })
      .from(messagingSenderIds)
      .where(
        and(
          eq(messagingSenderIds.accountId, accountId),
          eq(messagingSenderIds.senderId, senderId),
          eq(messagingSenderIds.status, 'approved'),
        ),
      )
      .limit(1);
    if (approved) return 'approved';
    if (!isNumber) return undefined;
    const [verified] = await db
      .select({ id: messagingSenderNumbers.id })
      .from(messagingSenderNumbers)
      .where(
        and(
          eq(messagingSenderNumbers.accountId, accountId),
          eq(messagingSenderNumbers.number, senderId),
          eq(messagingSenderNumbers.status, 'verified'),
        ),
      )
      .limit(1);
    return verified ? 'verified' : undefined;
  });
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
