import { randomUUID } from 'node:crypto';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure, WorkflowNotFoundError } from '@temporalio/common';
import { and, desc, eq } from 'drizzle-orm';
import {
  decideSenderId,
  SenderIdDecisionRefused,
  senderIdsAwaitingApproval,
  usableSender,
} from '../../credentials/messaging/senders.ts';
import { messagingSenderIds } from '../../db/schema/messaging.ts';
import { isAlphanumericSender } from '../../domain/messaging/phone.ts';
import {
  confirmSenderIdUpdate,
  type SenderIdDecision,
  SenderIdRefusal,
  type SenderIdRegistrationInput,
  senderIdWorkflowId,
} from '../../domain/messaging/processes.ts';
import { normaliseNumber } from '../../domain/phone-numbers.ts';
import { BusinessStatus, OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import type { senderIdRegistration } from '../../workflows/messaging/sender-id.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import { offsetOf, type Page } from './page.ts';

/**
 * Sender IDs of an account (POST /senderId, POST /senderId/confirm/{id}, GET /senderId[/{id}]): an
 * account registers the name (or number) its messages come from and confirms it; an operator then
 * approves or rejects it (below, decision 0028), and only an approved sender ID may be
 * used as `from`. An unconfirmed registration expires after SENDER_ID_CONFIRMATION_TIMEOUT, an undecided
 * one SENDER_ID_APPROVAL_TIMEOUT after its confirmation; the registration workflow (`sender-id-<id>`)
 * owns both deadlines.
 */

export const SENDER_ID_STATUSES = ['pending', 'confirmed', 'approved', 'rejected', 'expired'] as const;
export type SenderIdStatus = (typeof SENDER_ID_STATUSES)[number];

/** A registration as its account sees it. */
export interface SenderIdRecord {
  id: string;
  senderId: string;
  description: string | null;
  status: SenderIdStatus;
  createdAt: string;
  expiresAt: string;
  confirmedAt: string | null;
  decidedAt: string | null;
  decisionReason: string | null;
}

type SenderIdRow = typeof messagingSenderIds.$inferSelect;

const looksNumeric = (value: string) => /^(\+|00)?\d+$/.test(value);

const toRecord = (row: SenderIdRow): SenderIdRecord => ({
  id: row.id,
  senderId: row.senderId,
  description: row.description,
  status: row.status,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt.toISOString(),
  confirmedAt: row.confirmedAt?.toISOString() ?? null,
  decidedAt: row.decidedAt?.toISOString() ?? null,
  decisionReason: row.decisionReason ?? null,
});

/** The registration with this id of the account; 404 otherwise. */
async function findOwn(deps: UseCaseDeps, accountId: string, id: string): Promise<SenderIdRow> {
  const [row] = await deps.db
    .select()
    .from(messagingSenderIds)
    .where(and(eq(messagingSenderIds.id, id), eq(messagingSenderIds.accountId, accountId)));
  if (!row) throw Refusal.notFound('Sender ID');
  return row;
}

/**
 * Refuses `from` unless the account may send from it (decision 0028): an alphanumeric sender must be an
 * approved sender ID of the account (422 `sender_id_not_approved`); a phone number must be a number the
 * account verified (POST /numbers) or an approved numeric sender ID (422 `number_not_verified`).
 * Part of sending a message (sms/send.ts).
 */
export async function assertUsableSender(deps: UseCaseDeps, accountId: string, from: string): Promise<void> {
  const number = looksNumeric(from) ? normaliseNumber(from)?.e164 : undefined;
  // Answered from memory once seen usable (credentials/messaging/senders.ts, decision 0073).
  if (await usableSender(deps.db, accountId, number ?? from, number !== undefined)) return;
  if (number) {
    const message = `${number} is not a verified number of this account; prove it with POST /numbers and POST /numbers/{id}/verify`;
    throw new Refusal(422, 'number_not_verified', message, [{ field: 'from', message }]);
  }
  const message = `"${from}" is not an approved sender ID of this account; register it with POST /senderId, confirm it and wait for an operator's approval`;
  throw new Refusal(422, 'sender_id_not_approved', message, [{ field: 'from', message }]);
}

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

/** Registers a sender ID; its registration workflow expires it unless confirmed in time. */
export async function registerSenderId(
  deps: UseCaseDeps,
  request: { accountId: string; senderId: string; description?: string | undefined },
): Promise<SenderIdRecord> {
  const { accountId } = request;
  const problem = senderIdProblem(request.senderId);
  if (problem) throw Refusal.field('senderId', problem);
  const senderId = looksNumeric(request.senderId)
    ? normaliseNumber(request.senderId)!.e164
    : request.senderId;

  const now = new Date();
  const [row] = await deps.db
    .insert(messagingSenderIds)
    .values({
      id: randomUUID(),
      accountId,
      senderId,
      description: request.description ?? null,
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
    await deps.temporal.workflow.start<typeof senderIdRegistration>('senderIdRegistration', {
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

function refuseUnlessPending(row: SenderIdRow, now: Date): void {
  if (row.status === 'confirmed' || row.status === 'approved' || row.status === 'rejected') {
    throw Refusal.conflict('sender_id_already_confirmed', 'The sender ID is already confirmed');
  }
  if (row.status === 'expired' || row.expiresAt.getTime() <= now.getTime()) {
    throw Refusal.conflict('sender_id_expired', 'The sender ID registration has expired; register it again');
  }
}

/**
 * Confirms a pending registration through its workflow's update; it then waits for an operator's
 * approval before it may be used (decision 0028).
 */
export async function confirmSenderId(
  deps: UseCaseDeps,
  { accountId, id }: { accountId: string; id: string },
): Promise<SenderIdRecord> {
  const row = await findOwn(deps, accountId, id);
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
      refuseUnlessPending(await findOwn(deps, accountId, id), new Date());
    throw error;
  }
}

/** One registration of the account; 404 for another account's. */
export async function getSenderId(
  deps: UseCaseDeps,
  { accountId, id }: { accountId: string; id: string },
): Promise<SenderIdRecord> {
  return toRecord(await findOwn(deps, accountId, id));
}

/** The account's registrations (in one status if given), newest first. */
export async function listSenderIds(
  deps: UseCaseDeps,
  input: { accountId: string; status?: SenderIdStatus | undefined; page: number; size: number },
): Promise<Page<SenderIdRecord>> {
  const { accountId, status, page, size } = input;
  const conditions = [eq(messagingSenderIds.accountId, accountId)];
  if (status) conditions.push(eq(messagingSenderIds.status, status));
  const rows = await deps.db
    .select()
    .from(messagingSenderIds)
    .where(and(...conditions))
    .orderBy(desc(messagingSenderIds.createdAt), desc(messagingSenderIds.id))
    .limit(size)
    .offset(offsetOf(page, size));
  return { page, size, items: rows.map(toRecord) };
}

/**
 * The operator's side of sender IDs (admin API, the HTTP twin of `npm run admin -- messaging:sender-ids|
 * approve|reject`, decision 0028): the registrations their accounts confirmed, waiting for approval;
 * approving or rejecting one with a reason (shown to the account) and a note (for operators).
 */

/** A registration as an operator sees it. */
export interface SenderIdForOperator {
  id: string;
  accountId: string;
  senderId: string;
  description: string | null;
  status: string;
  createdAt: string;
  confirmedAt: string | null;
  decidedAt: string | null;
  decisionReason: string | null;
  operatorNote: string | null;
}

const forOperator = (row: typeof messagingSenderIds.$inferSelect): SenderIdForOperator => ({
  id: row.id,
  accountId: row.accountId,
  senderId: row.senderId,
  description: row.description,
  status: row.status,
  createdAt: row.createdAt.toISOString(),
  confirmedAt: row.confirmedAt?.toISOString() ?? null,
  decidedAt: row.decidedAt?.toISOString() ?? null,
  decisionReason: row.decisionReason,
  operatorNote: row.operatorNote,
});

/** Registrations confirmed by their accounts and not yet decided, oldest confirmation first. */
export async function senderIdsWaitingForApproval(deps: UseCaseDeps): Promise<SenderIdForOperator[]> {
  return (await senderIdsAwaitingApproval(deps.db)).map(forOperator);
}

/**
 * Approves or rejects a confirmed registration through its workflow; 404 for an unknown one, 409
 * `sender_id_not_awaiting_approval` unless it is confirmed and undecided.
 */
export async function decideSenderIdAsOperator(
  deps: UseCaseDeps,
  { id, decision }: { id: string; decision: SenderIdDecision },
): Promise<SenderIdForOperator> {
  try {
    return forOperator(await decideSenderId(deps, id, decision));
  } catch (error) {
    if (error instanceof SenderIdDecisionRefused) {
      if (error.code === 'not_found') throw Refusal.notFound('Sender ID');
      throw Refusal.conflict(error.code, error.message);
    }
    throw error;
  }
}
