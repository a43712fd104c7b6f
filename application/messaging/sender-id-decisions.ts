import {
  decideSenderId,
  SenderIdDecisionRefused,
  senderIdsAwaitingApproval,
} from '../../credentials/messaging/senders.ts';
import type { messagingSenderIds } from '../../db/schema/messaging.ts';
import type { SenderIdDecision } from '../../domain/messaging/processes.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';

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
  id: string,
  decision: SenderIdDecision,
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
