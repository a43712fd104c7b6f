import type { Config } from '../../platform/config.ts';
import { openSecret, sealSecret, secretBoxKey } from '../shared/secret-box.ts';

/**
 * Webhook signing secrets must stay usable (the engine computes an HMAC with them on every attempt), so
 * they are encrypted at rest, not hashed (decision 0006): AES-256-GCM with WEBHOOK_SECRET_KEY and the
 * endpoint's id as additional data (a ciphertext copied onto another endpoint's row does not decrypt),
 * by the shared secret box. The webhook engine (activities/webhooks) and the webhook endpoints' use
 * cases (application/webhooks/endpoints.ts, open banking's createhook) are the only readers; a secret is
 * never logged.
 */

/** The development default (sandbox, tests): SHA-256 of a fixed text; production requires the key. */
const DEVELOPMENT_KEY_SEED = 'integration-platform webhook secrets development key';

export function webhookSecretKey(config: Pick<Config, 'WEBHOOK_SECRET_KEY' | 'PLATFORM_MODE'>): Buffer {
  return secretBoxKey(
    config.WEBHOOK_SECRET_KEY,
    config.PLATFORM_MODE,
    'WEBHOOK_SECRET_KEY',
    DEVELOPMENT_KEY_SEED,
  );
}

const boundTo = (endpointId: string) => `webhook-endpoint:${endpointId}`;

export function encryptWebhookSecret(key: Buffer, endpointId: string, secret: string): string {
  return sealSecret(key, boundTo(endpointId), secret);
}

export function decryptWebhookSecret(key: Buffer, endpointId: string, stored: string): string {
  return openSecret(key, boundTo(endpointId), stored, `webhook endpoint ${endpointId}`);
}

/** What an endpoint row keeps of its secrets. */
export interface StoredEndpointSecrets {
  id: string;
  secretEncrypted: string;
  previousSecretEncrypted: string | null;
  previousSecretExpiresAt: Date | null;
}

/**
 * The secrets an attempt at `now` signs with: the current one first, then the previous one while the
 * rotation overlap lasts (receivers that still hold it keep verifying; Standard Webhooks sends
 * several space-separated signatures).
 */
export function signingSecretsOf(key: Buffer, endpoint: StoredEndpointSecrets, now: Date): string[] {
  const secrets = [decryptWebhookSecret(key, endpoint.id, endpoint.secretEncrypted)];
  if (
    endpoint.previousSecretEncrypted &&
    endpoint.previousSecretExpiresAt &&
    endpoint.previousSecretExpiresAt.getTime() > now.getTime()
  ) {
    secrets.push(decryptWebhookSecret(key, endpoint.id, endpoint.previousSecretEncrypted));
  }
  return secrets;
}
