import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures after the Standard Webhooks specification (https://www.standardwebhooks.com):
 *   webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">
 * keyed with the base64-decoded part of the secret after `whsec_`.
 *
 * Uses node:crypto, so workflow code must not import this file (activities and tests do).
 */

const SECRET_PREFIX = 'whsec_';

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** A new signing secret: `whsec_` + base64 of 24 random bytes (the format receivers' libraries expect). */
export function generateWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

function signingKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}

function signatureOf(secret: string, id: string, timestamp: number, body: string): string {
  return createHmac('sha256', signingKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
}

/**
 * The three headers of one attempt; `timestamp` is unix seconds (a fresh one on every attempt). With
 * several secrets (during a rotation: the new one first, then the old one) `webhook-signature` carries
 * one space-separated `v1,<signature>` per secret, so a receiver holding either verifies.
 */
export function signWebhook(
  secrets: string | readonly string[],
  id: string,
  timestamp: number,
  body: string,
): WebhookHeaders {
  const keys = typeof secrets === 'string' ? [secrets] : secrets;
  if (keys.length === 0) throw new Error(`webhook ${id}: no signing secret`);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': keys.map((secret) => `v1,${signatureOf(secret, id, timestamp, body)}`).join(' '),
  };
}

export type WebhookVerification =
  | { valid: true }
  | { valid: false; reason: 'missing_headers' | 'timestamp_outside_tolerance' | 'no_matching_signature' };

/**
 * Verifies a received webhook as a receiver would: the timestamp must lie within `toleranceSeconds`
 * of `now` (replay protection), and one of the space-separated `v1,` signatures must match.
 */
export function verifyWebhook(
  secret: string,
  headers: Partial<Record<keyof WebhookHeaders, string>>,
  body: string,
  toleranceSeconds = 300,
  now: Date = new Date(),
): WebhookVerification {
  const id = headers['webhook-id'];
  const timestampText = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestampText || !signatures) return { valid: false, reason: 'missing_headers' };

  const timestamp = Number(timestampText);
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (!/^\d+$/.test(timestampText) || Math.abs(nowSeconds - timestamp) > toleranceSeconds) {
    return { valid: false, reason: 'timestamp_outside_tolerance' };
  }

  const expected = Buffer.from(signatureOf(secret, id, timestamp, body), 'base64');
  for (const versioned of signatures.split(' ')) {
    const [version, signature] = versioned.split(',', 2);
    if (version !== 'v1' || !signature) continue;
    const candidate = Buffer.from(signature, 'base64');
    // timingSafeEqual throws on unequal lengths; a wrong length is simply no match.
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) return { valid: true };
  }
  return { valid: false, reason: 'no_matching_signature' };
}
