import { WorkflowNotFoundError } from '@temporalio/client';
import { and, desc, eq } from 'drizzle-orm';
import { chatAppIdentity } from '../../connectors/messaging/chatapp-provider.ts';
import {
  type ChatAppStatusEvent,
  statusEventsOf,
  verifyHubSignature,
  verifySubscription,
  whatsAppNotificationSchema,
} from '../../connectors/messaging/whatsapp-webhook.ts';
import { messagingMessages } from '../../db/schema/messaging.ts';
import { deliveryReceiptSignal, messageWorkflowId } from '../../domain/messaging/processes.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';

/**
 * The chat-app provider's webhook (decision 0062) at `/messaging/chatapp/webhook`
 * (api/messaging/chatapp-webhook.ts): the WhatsApp Cloud API checks the subscription with a GET, and
 * POSTs the status events of the messages we sent, signed with the app secret.
 *
 * A POST is judged by its `X-Hub-Signature-256` before a byte of it is parsed: no header is 401
 * `signature_missing`, a wrong or malformed one 403 `signature_invalid`, and nothing is applied. A signed
 * notification's statuses of our business number are matched to their messages and signalled to each
 * message's workflow (`sms-<id>`) as its delivery receipt, where the first final one wins: `delivered`
 * and `read` → delivered, `failed` → undeliverable with WhatsApp's error; `sent` changes nothing. A status
 * of a message this platform does not know, or whose workflow has finished, is logged and ignored (it
 * is answered 200 all the same: a provider retries any other answer for days).
 */

const HEADER = 'x-hub-signature-256';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The subscription check: the challenge to answer, or 403 `verify_token_invalid`. */
export function checkChatAppSubscription(
  deps: Pick<UseCaseDeps, 'config'>,
  query: { mode?: string | undefined; verifyToken?: string | undefined; challenge?: string | undefined },
): string {
  const challenge = verifySubscription(query, deps.config.CHATAPP_VERIFY_TOKEN);
  if (challenge === undefined) {
    throw new Refusal(
      403,
      'verify_token_invalid',
      'The subscription check needs hub.mode=subscribe, the configured hub.verify_token and hub.challenge',
      [{ field: 'hub.verify_token', message: 'does not match CHATAPP_VERIFY_TOKEN' }],
    );
  }
  return challenge;
}

export interface ChatAppNotificationOutcome {
  /** Status events in the notification. */
  statuses: number;
  /** Final statuses signalled to a waiting message. */
  applied: number;
}

/** Checks the signature of a POSTed notification, then applies its statuses. */
export async function receiveChatAppNotification(
  deps: UseCaseDeps,
  { rawBody, signature }: { rawBody: Uint8Array; signature: string | undefined },
): Promise<ChatAppNotificationOutcome> {
  const check = verifyHubSignature(rawBody, signature, deps.config.CHATAPP_APP_SECRET);
  if (!check.valid) {
    if (check.reason === 'missing') {
      throw new Refusal(401, 'signature_missing', 'The notification carries no X-Hub-Signature-256', [
        { field: HEADER, message: 'required: sha256=<HMAC-SHA256 of the body with the app secret>' },
      ]);
    }
    throw new Refusal(403, 'signature_invalid', 'The X-Hub-Signature-256 does not match the body', [
      { field: HEADER, message: check.reason === 'malformed' ? 'not sha256=<64 hex digits>' : 'mismatch' },
    ]);
  }

  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(rawBody).toString('utf8'));
  } catch {
    throw new Refusal(400, 'malformed_request', 'The notification is not JSON', [
      { field: 'body', message: 'not JSON' },
    ]);
  }
  const parsed = whatsAppNotificationSchema.safeParse(json);
  if (!parsed.success) {
    throw Refusal.validation(
      parsed.error.issues.map((issue) => ({ field: issue.path.join('.') || 'body', message: issue.message })),
    );
  }

  const events = statusEventsOf(parsed.data);
  let applied = 0;
  for (const event of events) {
    if (await applyStatus(deps, event)) applied += 1;
  }
  return { statuses: events.length, applied };
}

/** Signals one final status to its message's workflow; false when it concerns nothing waiting here. */
async function applyStatus(deps: UseCaseDeps, event: ChatAppStatusEvent): Promise<boolean> {
  const { config, logger } = deps;
  if (!event.receipt) return false;
  const log = { kind: 'chatapp-status', carrierMessageId: event.carrierMessageId, status: event.status };
  if (event.phoneNumberId !== config.CHATAPP_PHONE_NUMBER_ID) {
    logger.warn({ ...log, phoneNumberId: event.phoneNumberId }, 'status of another business number ignored');
    return false;
  }
  const messageId = await findMessage(deps, event);
  if (!messageId) {
    logger.warn(log, 'status of an unknown chat-app message ignored');
    return false;
  }
  const workflowId = messageWorkflowId(messageId);
  try {
    await deps.temporal.workflow.getHandle(workflowId).signal(deliveryReceiptSignal, event.receipt);
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    logger.warn({ ...log, workflowId }, 'status of a finished chat-app message ignored');
    return false;
  }
  logger.info({ ...log, workflowId }, 'chat-app status routed');
  return true;
}

/**
 * The message a status is about: by the id we sent as `biz_opaque_callback_data` (known even before the
 * submission's bookkeeping is written), else by WhatsApp's message id at this provider account.
 */
async function findMessage(deps: UseCaseDeps, event: ChatAppStatusEvent): Promise<string | undefined> {
  const { db, config } = deps;
  if (event.messageId && UUID.test(event.messageId)) {
    const [row] = await db
      .select({ id: messagingMessages.id })
      .from(messagingMessages)
      .where(and(eq(messagingMessages.id, event.messageId), eq(messagingMessages.channel, 'chatapp')));
    if (row) return row.id;
  }
  const [row] = await db
    .select({ id: messagingMessages.id })
    .from(messagingMessages)
    .where(
      and(
        eq(messagingMessages.carrierMessageId, event.carrierMessageId),
        eq(messagingMessages.carrier, chatAppIdentity(config.CHATAPP_URL, config.CHATAPP_PHONE_NUMBER_ID)),
        eq(messagingMessages.channel, 'chatapp'),
      ),
    )
    .orderBy(desc(messagingMessages.submittedAt))
    .limit(1);
  return row?.id;
}
