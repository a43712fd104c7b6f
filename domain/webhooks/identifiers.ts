import { createHash, randomBytes } from 'node:crypto';

/**
 * Ids of endpoints and deliveries. Uses node:crypto: activities only, never workflows.
 */

/**
 * The delivery id is derived from the event and the endpoint, so the same event to the same endpoint
 * is always the same delivery (and the same workflow, `webhook-<deliveryId>`). 96 bits of SHA-256.
 */
export function webhookDeliveryId(eventId: string, endpointId: string): string {
  return `whd_${createHash('sha256').update(`${endpointId}\n${eventId}`).digest('hex').slice(0, 24)}`;
}

export function newWebhookEndpointId(): string {
  return `whe_${randomBytes(12).toString('hex')}`;
}
