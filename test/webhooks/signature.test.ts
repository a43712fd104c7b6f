import { describe, expect, it } from 'vitest';
import { generateWebhookSecret, signWebhook, verifyWebhook } from '../../domain/webhooks/signature.ts';

// The published Standard Webhooks test vector (specification and its reference libraries).
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const vectorTime = new Date(VECTOR.timestamp * 1000);
const vectorHeaders = {
  'webhook-id': VECTOR.id,
  'webhook-timestamp': String(VECTOR.timestamp),
  'webhook-signature': VECTOR.signature,
};

describe('Standard Webhooks signature', () => {
  it('reproduces the specification test vector exactly', () => {
    expect(signWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toEqual(vectorHeaders);
  });

  it('verifies the test vector, also among several signatures', () => {
    expect(verifyWebhook(VECTOR.secret, vectorHeaders, VECTOR.body, 300, vectorTime)).toEqual({
      valid: true,
    });
    const rotated = { ...vectorHeaders, 'webhook-signature': `v1,bm9wZQ== ${VECTOR.signature}` };
    expect(verifyWebhook(VECTOR.secret, rotated, VECTOR.body, 300, vectorTime)).toEqual({ valid: true });
  });

  it('rejects a tampered body', () => {
    expect(verifyWebhook(VECTOR.secret, vectorHeaders, '{"test": 2432232315}', 300, vectorTime)).toEqual({
      valid: false,
      reason: 'no_matching_signature',
    });
  });

  it('rejects a signature made with another secret', () => {
    const other = generateWebhookSecret();
    const headers = signWebhook(other, VECTOR.id, VECTOR.timestamp, VECTOR.body);
    expect(verifyWebhook(VECTOR.secret, headers, VECTOR.body, 300, vectorTime)).toEqual({
      valid: false,
      reason: 'no_matching_signature',
    });
  });

  it('rejects a changed id or timestamp (both are signed)', () => {
    const changedId = { ...vectorHeaders, 'webhook-id': 'msg_other' };
    expect(verifyWebhook(VECTOR.secret, changedId, VECTOR.body, 300, vectorTime).valid).toBe(false);
    const changedTime = { ...vectorHeaders, 'webhook-timestamp': String(VECTOR.timestamp + 1) };
    expect(verifyWebhook(VECTOR.secret, changedTime, VECTOR.body, 300, vectorTime).valid).toBe(false);
  });

  it('rejects a timestamp outside the tolerance, past or future', () => {
    const late = new Date((VECTOR.timestamp + 301) * 1000);
    expect(verifyWebhook(VECTOR.secret, vectorHeaders, VECTOR.body, 300, late)).toEqual({
      valid: false,
      reason: 'timestamp_outside_tolerance',
    });
    const early = new Date((VECTOR.timestamp - 301) * 1000);
    expect(verifyWebhook(VECTOR.secret, vectorHeaders, VECTOR.body, 300, early).valid).toBe(false);
    // Just inside the tolerance is still valid.
    const inside = new Date((VECTOR.timestamp + 300) * 1000);
    expect(verifyWebhook(VECTOR.secret, vectorHeaders, VECTOR.body, 300, inside)).toEqual({ valid: true });
  });

  it('rejects missing headers and unknown signature versions', () => {
    const { 'webhook-signature': _, ...unsigned } = vectorHeaders;
    expect(verifyWebhook(VECTOR.secret, unsigned, VECTOR.body, 300, vectorTime)).toEqual({
      valid: false,
      reason: 'missing_headers',
    });
    const v2 = { ...vectorHeaders, 'webhook-signature': VECTOR.signature.replace('v1,', 'v2,') };
    expect(verifyWebhook(VECTOR.secret, v2, VECTOR.body, 300, vectorTime).valid).toBe(false);
  });

  it('issues secrets as whsec_ + base64 of 24 random bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(24);
    expect(generateWebhookSecret()).not.toBe(secret);
  });
});
