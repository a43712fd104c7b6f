import { and, asc, eq, gte, lt } from 'drizzle-orm';
import { messagingMessages } from '../../../db/schema/messaging.ts';
import type { MessageStatus } from '../../../domain/messaging/delivery-receipt.ts';
import { messageWorkflowId } from '../../../domain/messaging/processes.ts';
import type { UseCaseDeps } from '../../shared/deps.ts';
import { Refusal } from '../../shared/refusal.ts';
import { offsetOf, type Page } from '../page.ts';
import type { Channel, Encoding } from './send.ts';

/** Reading an account's messages, SMS and chat-app alike (GET /sms/{id}, GET /sms), from the read model. */

export interface MessageView {
  id: string;
  channel: Channel;
  status: MessageStatus;
  to: string;
  from: string;
  /** Masked when `containsCode`. */
  message: string;
  containsCode: boolean;
  encoding: Encoding;
  parts: number;
  scheduled: string | null;
  dlrUrl: string | null;
  error: string | null;
  createdAt: string;
  submittedAt: string | null;
  doneAt: string | null;
  /** The workflow that follows the message, for the Temporal Web UI (null until handed over). */
  process: string | null;
}

export interface ScheduledMessage {
  id: string;
  scheduled: string;
  from: string;
  to: string;
  message: string;
  dlrUrl: string | null;
}

/**
 * The workflow that follows the message (decision 0074): the batch it was handed over in, else its own
 * `sms-<id>`; null while an SMS waits to be handed over in a batch.
 */
function processOf(row: typeof messagingMessages.$inferSelect): string | null {
  if (row.processId) return row.processId;
  return row.status === 'accepted' && row.channel === 'sms' ? null : messageWorkflowId(row.id);
}

/** GET /sms/{id}: one message of the account (SMS or chat-app) from the read model; 404 for another account's. */
export async function getSms(
  deps: UseCaseDeps,
  { accountId, id }: { accountId: string; id: string },
): Promise<MessageView> {
  const [row] = await deps.db
    .select()
    .from(messagingMessages)
    .where(and(eq(messagingMessages.id, id), eq(messagingMessages.accountId, accountId)));
  if (!row) throw Refusal.notFound('Message');
  return {
    id: row.id,
    channel: row.channel,
    status: row.status as MessageStatus,
    to: row.to,
    from: row.from,
    message: row.message,
    containsCode: row.containsCode,
    encoding: row.encoding,
    parts: row.parts,
    scheduled: row.scheduled?.toISOString() ?? null,
    dlrUrl: row.dlrUrl,
    error: row.error,
    createdAt: row.createdAt.toISOString(),
    submittedAt: row.submittedAt?.toISOString() ?? null,
    doneAt: row.doneAt?.toISOString() ?? null,
    process: processOf(row),
  };
}

/** GET /sms: the account's messages that wait for their scheduled time (on one UTC day if given), earliest first. */
export async function listScheduledSms(
  deps: UseCaseDeps,
  input: { accountId: string; scheduledOn?: string | undefined; page: number; size: number },
): Promise<Page<ScheduledMessage>> {
  const { accountId, scheduledOn, page, size } = input;
  const conditions = [eq(messagingMessages.accountId, accountId), eq(messagingMessages.status, 'scheduled')];
  if (scheduledOn) {
    const dayStart = new Date(`${scheduledOn}T00:00:00Z`);
    conditions.push(
      gte(messagingMessages.scheduled, dayStart),
      lt(messagingMessages.scheduled, new Date(dayStart.getTime() + 86_400_000)),
    );
  }
  const rows = await deps.db
    .select()
    .from(messagingMessages)
    .where(and(...conditions))
    .orderBy(asc(messagingMessages.scheduled), asc(messagingMessages.id))
    .limit(size)
    .offset(offsetOf(page, size));
  return {
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
  };
}
