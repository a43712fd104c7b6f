import {
  currentSecretOf,
  ensureWebhookEndpoint,
  liveWebhookEndpointsOf,
  deleteWebhookEndpoint as markWebhookEndpointDeleted,
  rotateWebhookSecret,
  type WebhookEndpointRow,
} from '../../credentials/webhooks/endpoints.ts';
import { webhookSecretKey } from '../../credentials/webhooks/signing-secrets.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { assertOutboundUrlField } from '../shared/outbound-url.ts';
import { Refusal } from '../shared/refusal.ts';
import type { OwnedId, WebhookOwner } from './owner.ts';

/**
 * Webhook endpoints as their owner sees them (GET/POST /webhooks/endpoints of every service): each with
 * its signing secret, created before the first delivery if the owner wishes, its secret rotated, and
 * deleted (a temporary endpoint of `webhooks listen`).
 */

export interface WebhookEndpointView {
  id: string;
  url: string;
  /** The current signing secret, in plain: shown to the endpoint's owner only. */
  secret: string;
  secretRotatedAt: string | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
}

function endpointView(row: WebhookEndpointRow, secret: string): WebhookEndpointView {
  return {
    id: row.id,
    url: row.url,
    secret,
    secretRotatedAt: row.secretRotatedAt?.toISOString() ?? null,
    previousSecretExpiresAt: row.previousSecretExpiresAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The owner's endpoints with their current secrets, oldest first. */
export async function listWebhookEndpoints(
  deps: UseCaseDeps,
  { owner }: { owner: WebhookOwner },
): Promise<WebhookEndpointView[]> {
  const key = webhookSecretKey(deps.config);
  const rows = await liveWebhookEndpointsOf(deps.db, owner);
  return rows.map((row) => endpointView(row, currentSecretOf(key, row)));
}

/**
 * The owner's endpoint for `url` with its secret, created now unless it existed (`created` says which).
 * A URL the outbound-URL policy refuses is a 400 naming `url`.
 */
export async function createWebhookEndpoint(
  deps: UseCaseDeps,
  { owner, url }: { owner: WebhookOwner; url: string },
): Promise<{ endpoint: WebhookEndpointView; created: boolean }> {
  assertOutboundUrlField(deps.config, 'url', url);
  const key = webhookSecretKey(deps.config);
  const { endpoint, created } = await ensureWebhookEndpoint(deps.db, key, { ...owner, url });
  return { endpoint: endpointView(endpoint, currentSecretOf(key, endpoint)), created };
}

/** Replaces the endpoint's secret; the old one signs beside it for WEBHOOK_SECRET_ROTATION_OVERLAP. */
export async function rotateWebhookEndpointSecret(
  deps: UseCaseDeps,
  { owner, id: endpointId }: OwnedId,
): Promise<WebhookEndpointView> {
  const { config } = deps;
  const rotated = await rotateWebhookSecret(
    deps.db,
    webhookSecretKey(config),
    { ...owner, endpointId },
    config.WEBHOOK_SECRET_ROTATION_OVERLAP,
  );
  if (!rotated) throw Refusal.notFound('Webhook endpoint');
  return endpointView(rotated.endpoint, rotated.secret);
}

/**
 * Deletes the owner's endpoint: no longer listed, its secret no longer answered; its deliveries stay
 * readable. Another owner's, or an already deleted, endpoint is a 404.
 */
export async function deleteWebhookEndpoint(
  deps: UseCaseDeps,
  { owner, id: endpointId }: OwnedId,
): Promise<void> {
  if (!(await markWebhookEndpointDeleted(deps.db, { ...owner, endpointId }))) {
    throw Refusal.notFound('Webhook endpoint');
  }
}
