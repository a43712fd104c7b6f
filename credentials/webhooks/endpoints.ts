import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { webhookEndpoints } from '../../db/schema/webhooks.ts';
import { newWebhookEndpointId } from '../../domain/webhooks/identifiers.ts';
import { generateWebhookSecret } from '../../domain/webhooks/signature.ts';
import { decryptWebhookSecret, encryptWebhookSecret } from './signing-secrets.ts';

/**
 * Webhook endpoints as the engine and the webhook routes create and rotate them: one per owner
 * (service + owner id) and URL, each with its own signing secret, stored encrypted.
 */

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

/** An owner's live (not deleted) endpoints, oldest first. */
export function liveWebhookEndpointsOf(db: Database, owner: { service: string; ownerId: string }) {
  return db
    .select()
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.service, owner.service),
        eq(webhookEndpoints.ownerId, owner.ownerId),
        isNull(webhookEndpoints.deletedAt),
      ),
    )
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
}

/**
 * The owner's endpoint for `url`, created with a fresh signing secret the first time (insert-if-absent:
 * concurrent calls for the same URL find the same row). `created` tells whether this call made it. A
 * deleted endpoint for the URL is revived with a fresh secret (the old one may have been shared with a
 * temporary receiver, e.g. `webhooks listen`), which counts as created.
 */
export async function ensureWebhookEndpoint(
  db: Database,
  key: Buffer,
  owner: { service: string; ownerId: string; url: string },
): Promise<{ endpoint: WebhookEndpointRow; created: boolean }> {
  const sameOwnerAndUrl = and(
    eq(webhookEndpoints.service, owner.service),
    eq(webhookEndpoints.ownerId, owner.ownerId),
    eq(webhookEndpoints.url, owner.url),
  );
  // Most calls find the endpoint live: one read, and no secret generated for nothing.
  const [live] = await db.select().from(webhookEndpoints).where(sameOwnerAndUrl);
  if (live && live.deletedAt === null) return { endpoint: live, created: false };
  const id = newWebhookEndpointId();
  const [inserted] = await db
    .insert(webhookEndpoints)
    .values({
      id,
      service: owner.service,
      ownerId: owner.ownerId,
      url: owner.url,
      secretEncrypted: encryptWebhookSecret(key, id, generateWebhookSecret()),
    })
    .onConflictDoNothing({
      target: [webhookEndpoints.service, webhookEndpoints.ownerId, webhookEndpoints.url],
    })
    .returning();
  if (inserted) return { endpoint: inserted, created: true };
  const [existing] = await db.select().from(webhookEndpoints).where(sameOwnerAndUrl);
  if (!existing)
    throw new Error(`webhook endpoint of ${owner.service}/${owner.ownerId} vanished after insert`);
  if (existing.deletedAt === null) return { endpoint: existing, created: false };
  const [revived] = await db
    .update(webhookEndpoints)
    .set({
      deletedAt: null,
      secretEncrypted: encryptWebhookSecret(key, existing.id, generateWebhookSecret()),
      previousSecretEncrypted: null,
      previousSecretExpiresAt: null,
      secretRotatedAt: null,
      createdAt: new Date(),
    })
    .where(and(eq(webhookEndpoints.id, existing.id), eq(webhookEndpoints.deletedAt, existing.deletedAt)))
    .returning();
  // A concurrent call revived it first: answer the row as it is now.
  if (!revived) return ensureWebhookEndpoint(db, key, owner);
  return { endpoint: revived, created: true };
}

/** The row of the owner's endpoint `endpointId`, unless it was deleted. */
const ownedLiveEndpoint = (owner: { service: string; ownerId: string; endpointId: string }) =>
  and(
    eq(webhookEndpoints.id, owner.endpointId),
    eq(webhookEndpoints.service, owner.service),
    eq(webhookEndpoints.ownerId, owner.ownerId),
    isNull(webhookEndpoints.deletedAt),
  );

/**
 * Deletes the owner's endpoint (marks it deleted: its deliveries keep referring to it). False when the
 * owner has no such endpoint, or it was deleted already.
 */
export async function deleteWebhookEndpoint(
  db: Database,
  owner: { service: string; ownerId: string; endpointId: string },
  now = new Date(),
): Promise<boolean> {
  const deleted = await db
    .update(webhookEndpoints)
    .set({ deletedAt: now })
    .where(ownedLiveEndpoint(owner))
    .returning({ id: webhookEndpoints.id });
  return deleted.length > 0;
}

/** The endpoint's current signing secret, in plain (for its owner's eyes and the signing attempt only). */
export const currentSecretOf = (key: Buffer, endpoint: WebhookEndpointRow): string =>
  decryptWebhookSecret(key, endpoint.id, endpoint.secretEncrypted);

/**
 * Replaces the endpoint's signing secret with a fresh one; the old one stays in use beside it (both
 * signatures on every attempt) until `now + overlapMs`. A second rotation within the overlap drops the
 * oldest: only the secret being replaced stays. Undefined when the owner has no such endpoint.
 */
export async function rotateWebhookSecret(
  db: Database,
  key: Buffer,
  owner: { service: string; ownerId: string; endpointId: string },
  overlapMs: number,
  now = new Date(),
): Promise<{ endpoint: WebhookEndpointRow; secret: string } | undefined> {
  const secret = generateWebhookSecret();
  return db.transaction(async (tx) => {
    const [endpoint] = await tx.select().from(webhookEndpoints).where(ownedLiveEndpoint(owner)).for('update');
    if (!endpoint) return undefined;
    const [rotated] = await tx
      .update(webhookEndpoints)
      .set({
        secretEncrypted: encryptWebhookSecret(key, endpoint.id, secret),
        previousSecretEncrypted: endpoint.secretEncrypted,
        previousSecretExpiresAt: new Date(now.getTime() + overlapMs),
        secretRotatedAt: now,
      })
      .where(eq(webhookEndpoints.id, endpoint.id))
      .returning();
    return { endpoint: rotated!, secret };
  });
}
