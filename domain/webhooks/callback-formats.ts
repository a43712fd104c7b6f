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

/**
 * Open-banking hook calls (docs/openbanking.md, "Webhooks"): the body is the compact JWS the consent
 * or payment workflow signed with the gateway's published keys (`payload.jws`), sent as
 * `application/jose`; verify it with the JWKS at /openbanking/api/6/.well-known/jwks.json. The same
 * request also carries a Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature` over the JWS text as body, with the hook endpoint's secret, signed afresh on every
 * attempt), so one verifier serves every callback of the platform.
 */
export const openBankingJws: CallbackFormat = {
  buildRequest(event, secrets, now) {
    const jws = event.payload.jws;
    if (typeof jws !== 'string')
      throw new Error(`delivery ${event.deliveryId} has no signed payload (payload.jws)`);
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
};
