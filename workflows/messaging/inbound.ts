import type { WebhookRequest } from '../../domain/webhooks/processes.ts';
import { sendWebhook } from '../webhooks/send.ts';

/**
 * One SMS a handset sent to an account's number (decision 0087): its `message.inbound` event, delivered
 * once through the webhook engine (signed, retried like delivery reports). The message is stored and its
 * opt-out applied before this starts (application/messaging/inbound.ts); the workflow id
 * (`inbound-<id>`) makes a redelivered SMS the same event. Returns the delivery id.
 */
export async function inboundMessage(event: WebhookRequest): Promise<string> {
  return sendWebhook(event);
}
