/**
 * Rules of webhook delivery shared by the delivery workflow and its activities.
 * Pure: safe to import from workflow code.
 */

/**
 * How an attempt builds its HTTP request and reads the reply. Every format shares the schedule,
 * the attempt records and the read API; only the wire format differs (see callback-formats.ts).
 */
export const webhookFormats = ['standard-webhooks', 'openbanking-jws', 'openbanking-jws-envelope'] as const;
export type WebhookFormat = (typeof webhookFormats)[number];

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** A receiver's `Retry-After` can lengthen a wait, but never beyond this. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/**
 * How long to wait after the `failedAttempts`-th failed attempt before the next one, or undefined
 * when the schedule is exhausted and the delivery has failed. The receiver's `Retry-After` wins
 * when it asks for longer than the schedule (up to MAX_RETRY_AFTER_MS).
 */
export function delayBeforeNextAttempt(
  retryScheduleMs: readonly number[],
  failedAttempts: number,
  retryAfterMs?: number | null,
): number | undefined {
  const scheduled = retryScheduleMs[failedAttempts - 1];
  if (scheduled === undefined) return undefined;
  return Math.max(scheduled, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
}

/**
 * Reads an HTTP `Retry-After` value (RFC 9110: delay-seconds or an HTTP-date) as milliseconds
 * from `nowMs`; undefined when absent or unreadable. A date in the past means "now" (0).
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Every HTTP-date form starts with the day name; Date.parse alone would accept e.g. "-5" as a year.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}
