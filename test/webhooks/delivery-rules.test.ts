import { describe, expect, it } from 'vitest';
import { standardWebhooks } from '../../domain/webhooks/callback-formats.ts';
import {
  delayBeforeNextAttempt,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
} from '../../domain/webhooks/delivery.ts';
import { webhookDeliveryId } from '../../domain/webhooks/identifiers.ts';
import { verifyWebhook } from '../../domain/webhooks/signature.ts';
import { loadConfig } from '../../platform/config.ts';

const HOUR = 3_600_000;

describe('webhook retry schedule', () => {
  it('defaults to immediately, then 5s, 5m, 30m, 2h, 5h, 10h, 14h, 20h, 24h', () => {
    expect(loadConfig({}).WEBHOOK_RETRY_SCHEDULE).toEqual([
      5_000,
      300_000,
      1_800_000,
      2 * HOUR,
      5 * HOUR,
      10 * HOUR,
      14 * HOUR,
      20 * HOUR,
      24 * HOUR,
    ]);
  });

  it('waits the scheduled delay after each failure and gives up when the schedule is exhausted', () => {
    const schedule = [5_000, 300_000];
    expect(delayBeforeNextAttempt(schedule, 1)).toBe(5_000);
    expect(delayBeforeNextAttempt(schedule, 2)).toBe(300_000);
    expect(delayBeforeNextAttempt(schedule, 3)).toBeUndefined();
    expect(delayBeforeNextAttempt([], 1)).toBeUndefined();
  });

  it("waits longer when the receiver's Retry-After asks for it, at most 24 h", () => {
    expect(delayBeforeNextAttempt([5_000], 1, 60_000)).toBe(60_000);
    expect(delayBeforeNextAttempt([5_000], 1, 1_000)).toBe(5_000);
    expect(delayBeforeNextAttempt([5_000], 1, 7 * 24 * HOUR)).toBe(MAX_RETRY_AFTER_MS);
    expect(delayBeforeNextAttempt([5_000], 1, null)).toBe(5_000);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-05-01T10:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP date; a past date means now', () => {
    expect(parseRetryAfter('Fri, 01 May 2026 10:05:00 GMT', now)).toBe(300_000);
    expect(parseRetryAfter('Fri, 01 May 2026 09:00:00 GMT', now)).toBe(0);
  });

  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });
});

describe('delivery id', () => {
  it('is stable for an event and endpoint and differs otherwise', () => {
    const id = webhookDeliveryId('sms-1.delivered', 'whe_a');
    expect(id).toMatch(/^whd_[0-9a-f]{24}$/);
    expect(webhookDeliveryId('sms-1.delivered', 'whe_a')).toBe(id);
    expect(webhookDeliveryId('sms-1.delivered', 'whe_b')).not.toBe(id);
    expect(webhookDeliveryId('sms-1.failed', 'whe_a')).not.toBe(id);
  });
});

describe('standard-webhooks callback format', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const event = {
    deliveryId: 'whd_0123456789abcdef01234567',
    eventType: 'message.status',
    occurredAt: new Date('2026-05-01T10:00:00Z'),
    payload: { id: 'm1', status: 'delivered' },
  };

  it('posts a signed JSON envelope that a receiver verifies', () => {
    const now = new Date('2026-05-01T10:00:07Z');
    const request = standardWebhooks.buildRequest(event, secret, now);
    expect(JSON.parse(request.body)).toEqual({
      type: 'message.status',
      timestamp: '2026-05-01T10:00:00.000Z',
      data: { id: 'm1', status: 'delivered' },
    });
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['webhook-id']).toBe(event.deliveryId);
    expect(request.headers['webhook-timestamp']).toBe(String(Math.floor(now.getTime() / 1000)));
    expect(verifyWebhook(secret, request.headers, request.body, 300, now)).toEqual({ valid: true });
  });

  it('signs afresh for a later attempt', () => {
    const first = standardWebhooks.buildRequest(event, secret, new Date('2026-05-01T10:00:07Z'));
    const second = standardWebhooks.buildRequest(event, secret, new Date('2026-05-01T10:05:07Z'));
    expect(second.body).toBe(first.body);
    expect(second.headers['webhook-timestamp']).not.toBe(first.headers['webhook-timestamp']);
    expect(second.headers['webhook-signature']).not.toBe(first.headers['webhook-signature']);
  });

  it('counts only 2xx as delivered and reads Retry-After of a refusal', () => {
    const now = new Date('2026-05-01T10:00:00Z');
    const reply = (status: number, headers: Record<string, string> = {}) =>
      standardWebhooks.interpretReply({ status, headers: new Headers(headers) }, now);
    expect(reply(200)).toEqual({ ok: true, retryAfterMs: undefined });
    expect(reply(204)).toEqual({ ok: true, retryAfterMs: undefined });
    expect(reply(302)).toEqual({ ok: false, retryAfterMs: undefined });
    expect(reply(429, { 'retry-after': '30' })).toEqual({ ok: false, retryAfterMs: 30_000 });
    expect(reply(503, { 'retry-after': 'Fri, 01 May 2026 10:01:00 GMT' })).toEqual({
      ok: false,
      retryAfterMs: 60_000,
    });
  });
});
