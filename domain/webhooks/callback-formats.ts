import { parseRetryAfter, type WebhookFormat } from './delivery.ts';
import { signWebhook } from './signature.ts';

/**
 * The wire formats an attempt can speak. The delivery workflow, its retry schedule and the attempt
 * records are the same for all of them; a service whose specification prescribes another callback
 * format (e.g. the payment-collection merchant notifications) adds an entry here and passes its
 * name as `format` in the WebhookRequest. Signing uses node:crypto: activities only, never workflows.
 */
export interface CallbackFormat {
  /** `secrets`: the endpoint's signing secret(s), the current one first (more than one during a rotation). */
  buildRequest(event: WebhookEvent, secrets: string | readonly string[], now: Date): OutgoingCallback;
  /** Whether the receiver took the event, and when it asked to be called again. */
  interpretReply(reply: { status: number; headers: Headers }, now: Date): CallbackReplyOutcome;
}

/** What one delivery carries, as recorded in webhook_deliveries. */
export interface WebhookEvent {
  deliveryId: string;
  eventType: string;
  occurredAt: Date;
  payload: Record<string, unknown>;
}

export interface OutgoingCallback {
  method: 'POST';
  headers: Record<string, string>;
  body: string;
}

export interface CallbackReplyOutcome {
  ok: boolean;
  retryAfterMs?: number | undefined;
}

/**
 * Standard Webhooks (https://www.standardwebhooks.com): a JSON envelope `{type, timestamp, data}`,
 * signed afresh on every attempt; any 2xx is success, anything else (including redirects) is retried.
 */
export const standardWebhooks: CallbackFormat = {
  buildRequest(event, secrets, now) {
    const body = JSON.stringify({
      type: event.eventType,
      timestamp: event.occurredAt.toISOString(),
      data: event.payload,
    });
    const signature = signWebhook(secrets, event.deliveryId, Math.floor(now.getTime() / 1000), body);
    return {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'integration-platform-webhooks/1',
        ...signature,
      },
      body,
    };
  },
  interpretReply(reply, now) {
    const ok = reply.status >= 200 && reply.status < 300;
    return {
      ok,
      retryAfterMs: ok ? undefined : parseRetryAfter(reply.headers.get('retry-after'), now.getTime()),
    };
  },
};

/** The compact JWS a consent or payment workflow signed for its hook call, stored as `payload.jws`. */
function signedJwsOf(event: WebhookEvent): string {
  const jws = event.payload.jws;
  if (typeof jws !== 'string')
    throw new Error(`delivery ${event.deliveryId} has no signed payload (payload.jws)`);
  return jws;
}

/**
 * Open-banking hook calls as a Standard Webhooks JSON envelope (decision 0064, the default for hooks
 * registered from this release on): `{"data":{"jws"},"timestamp","type"}`, `application/json`, the
 * `webhook-signature` over exactly that body, so the reference libraries' default `verify()` accepts it;
 * `data.jws` is the same compact JWS as before, verified with the published JWKS. `type` and
 * `timestamp` outside the JWS are for routing; what the receiver acts on is the JWS's payload. Keys
 * sorted, no whitespace: a library that re-encodes the parsed body before checking the HMAC (Elixir's
 * encodes a map, whose keys it sorts) gets these very bytes back.
 */
export const openBankingJwsEnvelope: CallbackFormat = {
  buildRequest(event, secrets, now) {
    const body = JSON.stringify({
      data: { jws: signedJwsOf(event) },
      timestamp: event.occurredAt.toISOString(),
      type: event.eventType,
    });
    const signature = signWebhook(secrets, event.deliveryId, Math.floor(now.getTime() / 1000), body);
    return {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'integration-platform-webhooks/1',
        ...signature,
      },
      body,
    };
  },
  interpretReply: (reply, now) => standardWebhooks.interpretReply(reply, now),
};

/**
 * Open-banking hook calls (docs/openbanking.md, "Webhooks"), as released in 0.1.0 and kept for hooks
 * registered before decision 0064 or with `bodyFormat: "jose"`: the body is the compact JWS the consent
 * or payment workflow signed with the gateway's published keys (`payload.jws`), sent as
 * `application/jose`; verify it with the JWKS at /openbanking/api/6/.well-known/jwks.json. The same
 * request also carries a Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature` over the JWS text as body, with the hook endpoint's secret, signed afresh on every
 * attempt), so one verifier serves every callback of the platform.
 */
export const openBankingJws: CallbackFormat = {
  buildRequest(event, secrets, now) {
    const jws = signedJwsOf(event);
    return {
      method: 'POST',
      headers: {
        'content-type': 'application/jose',
        'user-agent': 'integration-platform-webhooks/1',
        ...signWebhook(secrets, event.deliveryId, Math.floor(now.getTime() / 1000), jws),
      },
      body: jws,
    };
  },
  interpretReply: (reply, now) => standardWebhooks.interpretReply(reply, now),
};

export const callbackFormats: Record<WebhookFormat, CallbackFormat> = {
  'standard-webhooks': standardWebhooks,
  'openbanking-jws': openBankingJws,
  'openbanking-jws-envelope': openBankingJwsEnvelope,
};
