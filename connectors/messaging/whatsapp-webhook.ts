import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { DeliveryReceipt } from '../../domain/messaging/delivery-receipt.ts';

/**
 * The WhatsApp Cloud API's webhooks (decision 0062): the subscription check (`GET` with `hub.mode`,
 * `hub.verify_token`, `hub.challenge`) and the signed event notifications (`POST`, header
 * `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body keyed with the app secret>`), whose
 * `entry[].changes[].value.statuses[]` report what became of the messages we sent.
 */

export type SignatureCheck = { valid: true } | { valid: false; reason: 'missing' | 'malformed' | 'mismatch' };

/** Checks `X-Hub-Signature-256` against the raw body, in constant time; nothing of the body is read. */
export function verifyHubSignature(
  rawBody: Uint8Array,
  header: string | undefined,
  appSecret: string,
): SignatureCheck {
  if (!header) return { valid: false, reason: 'missing' };
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (!match?.[1]) return { valid: false, reason: 'malformed' };
  const presented = Buffer.from(match[1], 'hex');
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  return timingSafeEqual(presented, expected) ? { valid: true } : { valid: false, reason: 'mismatch' };
}

/** The subscription check: the challenge to echo, or undefined when the request is not ours. */
export function verifySubscription(
  query: { mode?: string | undefined; verifyToken?: string | undefined; challenge?: string | undefined },
  verifyToken: string,
): string | undefined {
  if (query.mode !== 'subscribe' || query.verifyToken === undefined || query.challenge === undefined)
    return undefined;
  const presented = Buffer.from(query.verifyToken);
  const expected = Buffer.from(verifyToken);
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
  return query.challenge;
}

const statusSchema = z.object({
  id: z.string().min(1),
  status: z.string(),
  timestamp: z.string().regex(/^\d+$/).optional(),
  recipient_id: z.string().optional(),
  biz_opaque_callback_data: z.string().optional(),
  errors: z
    .array(
      z.object({
        code: z.number().optional(),
        title: z.string().optional(),
        message: z.string().optional(),
        error_data: z.object({ details: z.string().optional() }).optional(),
      }),
    )
    .optional(),
});

/** Only what the platform reads; the rest of an event (contacts, inbound messages, pricing) is let through. */
export const whatsAppNotificationSchema = z.object({
  object: z.string(),
  entry: z.array(
    z.object({
      id: z.string().optional(),
      changes: z.array(
        z.object({
          field: z.string(),
          value: z.object({
            metadata: z.object({ phone_number_id: z.string() }).optional(),
            statuses: z.array(statusSchema).optional(),
          }),
        }),
      ),
    }),
  ),
});
export type WhatsAppNotification = z.infer<typeof whatsAppNotificationSchema>;

/** One status event of a message we sent, with the receipt it means (none for `sent`). */
export interface ChatAppStatusEvent {
  /** The business number the message was sent from. */
  phoneNumberId: string;
  /** The WhatsApp message id (`wamid...`), our carrier message id. */
  carrierMessageId: string;
  /** What we sent as `biz_opaque_callback_data`: the platform's message id. */
  messageId: string | undefined;
  status: string;
  receipt: DeliveryReceipt | undefined;
}

const isoOf = (unixSeconds: string | undefined) =>
  unixSeconds ? new Date(Number(unixSeconds) * 1000).toISOString() : undefined;

/**
 * The platform's receipt for a WhatsApp status: `delivered` and `read` (a read message was delivered;
 * a `read` may be the first event that arrives) are delivered; `failed` is undeliverable with the
 * first error's code and title; `sent` (accepted by WhatsApp, not yet on the phone) and any other
 * status mean nothing final.
 */
export function receiptOfStatus(status: z.infer<typeof statusSchema>): DeliveryReceipt | undefined {
  const doneAt = isoOf(status.timestamp);
  const at = doneAt ? { doneAt } : {};
  if (status.status === 'delivered' || status.status === 'read')
    return { carrierMessageId: status.id, status: 'delivered', carrierStatus: status.status, ...at };
  if (status.status === 'failed') {
    const error = status.errors?.[0];
    const errorCode = error
      ? `${error.code ?? 'failed'}: ${error.title ?? error.message ?? 'failed'}`.slice(0, 200)
      : 'failed';
    return {
      carrierMessageId: status.id,
      status: 'undeliverable',
      carrierStatus: 'failed',
      errorCode,
      ...at,
    };
  }
  return undefined;
}

/** Every message status of a notification (field `messages`), in the order they were sent. */
export function statusEventsOf(notification: WhatsAppNotification): ChatAppStatusEvent[] {
  const events: ChatAppStatusEvent[] = [];
  if (notification.object !== 'whatsapp_business_account') return events;
  for (const entry of notification.entry) {
    for (const change of entry.changes) {
      if (change.field !== 'messages' || !change.value.metadata) continue;
      for (const status of change.value.statuses ?? []) {
        events.push({
          phoneNumberId: change.value.metadata.phone_number_id,
          carrierMessageId: status.id,
          messageId: status.biz_opaque_callback_data,
          status: status.status,
          receipt: receiptOfStatus(status),
        });
      }
    }
  }
  return events;
}
