import { index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { webhookFormats } from '../../domain/webhooks/delivery.ts';

/**
 * A destination URL of one owner (service + account) with its signing secret. The secret must stay
 * usable to compute HMACs, so it is encrypted, not hashed: `v1.<iv>.<tag>.<data>` under
 * WEBHOOK_SECRET_KEY with the endpoint id as additional data (credentials/webhooks/signing-secrets.ts,
 * decision 0006); it is never logged.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    service: text('service').notNull(),
    ownerId: text('owner_id').notNull(),
    url: text('url').notNull(),
    secretEncrypted: text('secret_encrypted').notNull(),
    /** The secret before the last rotation, still signed with until `previousSecretExpiresAt`. */
    previousSecretEncrypted: text('previous_secret_encrypted'),
    previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true }),
    secretRotatedAt: timestamp('secret_rotated_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /**
     * Set when its owner deleted it (`DELETE /webhooks/endpoints/{id}`, e.g. `webhooks listen` on exit): no
     * longer listed; kept because its deliveries refer to it. A later callback to the same URL revives it
     * with a fresh secret.
     */
    deletedAt: timestamp('deleted_at', { withTimezone: true }),
  },
  (table) => [uniqueIndex('webhook_endpoints_owner_url_idx').on(table.service, table.ownerId, table.url)],
);

/**
 * One delivery of one event to one endpoint. Its id is derived from event and endpoint, is the
 * `webhook-id` header and the workflow id suffix (`webhook-<id>`).
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id),
    service: text('service').notNull(),
    ownerId: text('owner_id').notNull(),
    eventType: text('event_type').notNull(),
    /** The caller's stable event id (e.g. `sms-<id>.delivered`). */
    eventId: text('event_id').notNull(),
    subjectId: text('subject_id'),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    /** Query parameters of this delivery only, added to the endpoint's URL on every attempt. */
    urlParams: jsonb('url_params').$type<Record<string, string>>(),
    /** The wire format of its attempts (domain/webhooks/callback-formats.ts), kept for replays. */
    format: text('format', { enum: webhookFormats }).notNull().default('standard-webhooks'),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] }).notNull(),
    attemptCount: integer('attempt_count').notNull().default(0),
    /** How often its owner replayed it after it failed; each replay is a new attempt series. */
    replayCount: integer('replay_count').notNull().default(0),
    lastReplayedAt: timestamp('last_replayed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true }),
    completedAt: timestamp('completed_at', { withTimezone: true }),
  },
  (table) => [
    index('webhook_deliveries_owner_idx').on(table.service, table.ownerId, table.createdAt),
    index('webhook_deliveries_subject_idx').on(table.service, table.ownerId, table.subjectId),
  ],
);

/** Every attempt of a delivery: when, HTTP status, latency and error. One row per attempt number. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: serial('id').primaryKey(),
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id),
    attempt: integer('attempt').notNull(),
    attemptedAt: timestamp('attempted_at', { withTimezone: true }).notNull(),
    /** Absent when no HTTP reply arrived (connection refused, timeout). */
    statusCode: integer('status_code'),
    latencyMs: integer('latency_ms').notNull(),
    error: text('error'),
    /** The receiver's `Retry-After`, in ms, as read from its reply. */
    retryAfterMs: integer('retry_after_ms'),
  },
  (table) => [uniqueIndex('webhook_attempts_delivery_attempt_idx').on(table.deliveryId, table.attempt)],
);
