import { and, asc, count, desc, eq, type SQL, sql } from 'drizzle-orm';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../db/schema/webhooks.ts';
import { BusinessStatus, OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import { deliveryTaskQueue } from '../../domain/task-queues.ts';
import { type WebhookDeliveryInput, webhookReplayWorkflowId } from '../../domain/webhooks/processes.ts';
import type { UseCaseDeps } from '../shared/deps.ts';
import { Refusal } from '../shared/refusal.ts';
import type { OwnedId, WebhookOwner } from './owner.ts';

/**
 * Webhook deliveries as their owner sees them (GET /webhooks/deliveries[/{id}] of every service): its
 * own deliveries and every attempt of them, and the replay of a failed one. Everything else about a
 * delivery is written by the delivery workflows.
 */

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface WebhookDeliveryView {
  id: string;
  endpointId: string;
  url: string;
  eventType: string;
  eventId: string;
  subjectId: string | null;
  status: DeliveryStatus;
  attemptCount: number;
  replayCount: number;
  createdAt: string;
  lastAttemptAt: string | null;
  completedAt: string | null;
}

export interface WebhookAttemptView {
  attempt: number;
  attemptedAt: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  retryAfterMs: number | null;
}

export interface WebhookDeliveryDetail extends WebhookDeliveryView {
  /** The event data (`data` of the signed body). */
  payload: Record<string, unknown>;
  attempts: WebhookAttemptView[];
}

export interface WebhookDeliveryPage {
  page: number;
  size: number;
  /** Deliveries matching the filter, on all pages. */
  total: number;
  items: WebhookDeliveryView[];
}

const deliveryColumns = {
  id: webhookDeliveries.id,
  endpointId: webhookDeliveries.endpointId,
  url: webhookEndpoints.url,
  eventType: webhookDeliveries.eventType,
  eventId: webhookDeliveries.eventId,
  subjectId: webhookDeliveries.subjectId,
  status: webhookDeliveries.status,
  attemptCount: webhookDeliveries.attemptCount,
  replayCount: webhookDeliveries.replayCount,
  createdAt: webhookDeliveries.createdAt,
  lastAttemptAt: webhookDeliveries.lastAttemptAt,
  completedAt: webhookDeliveries.completedAt,
  payload: webhookDeliveries.payload,
};

interface DeliveryRow {
  id: string;
  endpointId: string;
  url: string;
  eventType: string;
  eventId: string;
  subjectId: string | null;
  status: DeliveryStatus;
  attemptCount: number;
  replayCount: number;
  createdAt: Date;
  lastAttemptAt: Date | null;
  completedAt: Date | null;
}

function deliveryView(row: DeliveryRow): WebhookDeliveryView {
  return {
    id: row.id,
    endpointId: row.endpointId,
    url: row.url,
    eventType: row.eventType,
    eventId: row.eventId,
    subjectId: row.subjectId,
    status: row.status,
    attemptCount: row.attemptCount,
    replayCount: row.replayCount,
    createdAt: row.createdAt.toISOString(),
    lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}

const ownedBy = (owner: WebhookOwner) =>
  and(eq(webhookDeliveries.service, owner.service), eq(webhookDeliveries.ownerId, owner.ownerId));

/** The delivery with its endpoint's URL, when the owner's. */
async function findDelivery(deps: UseCaseDeps, owner: WebhookOwner, id: string) {
  const [row] = await deps.db
    .select(deliveryColumns)
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(and(eq(webhookDeliveries.id, id), ownedBy(owner)));
  return row;
}

/** The owner's deliveries (about one subject, in one status, if given), newest first. */
export async function listWebhookDeliveries(
  deps: UseCaseDeps,
  input: {
    owner: WebhookOwner;
    subjectId?: string | undefined;
    status?: DeliveryStatus | undefined;
    page: number;
    size: number;
  },
): Promise<WebhookDeliveryPage> {
  const { owner, subjectId, status, page, size } = input;
  const conditions: (SQL | undefined)[] = [ownedBy(owner)];
  if (subjectId) conditions.push(eq(webhookDeliveries.subjectId, subjectId));
  if (status) conditions.push(eq(webhookDeliveries.status, status));
  const [rows, [counted]] = await Promise.all([
    deps.db
      .select(deliveryColumns)
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(and(...conditions))
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(size)
      .offset((page - 1) * size),
    deps.db
      .select({ total: count() })
      .from(webhookDeliveries)
      .where(and(...conditions)),
  ]);
  return { page, size, total: counted?.total ?? 0, items: rows.map(deliveryView) };
}

/** One delivery of the owner with all its attempts, first attempt first. */
export async function getWebhookDelivery(
  deps: UseCaseDeps,
  { owner, id }: OwnedId,
): Promise<WebhookDeliveryDetail> {
  const row = await findDelivery(deps, owner, id);
  // Another owner's delivery is "not found" too: existence is not leaked.
  if (!row) throw Refusal.notFound('Webhook delivery');
  const attempts = await deps.db
    .select()
    .from(webhookAttempts)
    .where(eq(webhookAttempts.deliveryId, id))
    .orderBy(asc(webhookAttempts.attempt));
  return {
    ...deliveryView(row),
    payload: row.payload,
    attempts: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      attemptedAt: attempt.attemptedAt.toISOString(),
      statusCode: attempt.statusCode,
      latencyMs: attempt.latencyMs,
      error: attempt.error,
      retryAfterMs: attempt.retryAfterMs,
    })),
  };
}

/**
 * Delivers a failed delivery's event again in a new attempt series (a new `webhookDelivery` workflow);
 * 404 for another owner's, 409 `delivery_not_failed` unless it failed.
 */
export async function replayWebhookDelivery(
  deps: UseCaseDeps,
  { owner, id }: OwnedId,
): Promise<WebhookDeliveryView> {
  const { db, config, temporal } = deps;
  // Only a failed delivery goes back to pending; the condition makes two concurrent replays one.
  const [replayed] = await db
    .update(webhookDeliveries)
    .set({
      status: 'pending',
      completedAt: null,
      replayCount: sql`${webhookDeliveries.replayCount} + 1`,
      lastReplayedAt: new Date(),
    })
    .where(and(eq(webhookDeliveries.id, id), ownedBy(owner), eq(webhookDeliveries.status, 'failed')))
    .returning();
  if (!replayed) {
    const [existing] = await db
      .select({ status: webhookDeliveries.status })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, id), ownedBy(owner)));
    if (!existing) throw Refusal.notFound('Webhook delivery');
    throw Refusal.conflict(
      'delivery_not_failed',
      existing.status === 'delivered'
        ? 'The delivery was delivered; only a failed delivery can be replayed'
        : 'Attempts of this delivery still go on; only a failed delivery can be replayed',
    );
  }
  const input: WebhookDeliveryInput = {
    deliveryId: replayed.id,
    format: replayed.format,
    eventType: replayed.eventType,
    retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE,
    requestTimeoutMs: config.WEBHOOK_REQUEST_TIMEOUT,
    firstAttempt: replayed.attemptCount + 1,
  };
  try {
    await temporal.workflow.start('webhookDelivery', {
      workflowId: webhookReplayWorkflowId(replayed.id, replayed.replayCount),
      taskQueue: deliveryTaskQueue(config.TEMPORAL_TASK_QUEUE),
      args: [input],
      typedSearchAttributes: [
        { key: PlatformService, value: owner.service },
        { key: OwnerId, value: owner.ownerId },
        { key: BusinessStatus, value: 'pending' },
      ],
      staticSummary: `${replayed.eventType} webhook replay ${replayed.replayCount} of ${replayed.id}`,
    });
  } catch (error) {
    // Not started: the delivery stays failed (and replayable), as before this request.
    await db
      .update(webhookDeliveries)
      .set({ status: 'failed', completedAt: replayed.lastAttemptAt ?? new Date() })
      .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.status, 'pending')));
    throw error;
  }
  // Owned: the update above matched only the owner's delivery.
  const row = await findDelivery(deps, owner, id);
  return deliveryView(row!);
}
