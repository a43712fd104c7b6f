import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { and, asc, count, desc, eq, type SQL } from 'drizzle-orm';
import type { Context } from 'hono';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../db/schema/webhooks.ts';
import type { ApiDeps, AppEnv } from './context.ts';
import { ApiError, errorResponses } from './errors.ts';

/**
 * Read routes of the shared webhook delivery engine, mounted by each service under its base path:
 * an owner sees its own deliveries, every attempt of them, and its endpoints' signing secrets.
 * Writes happen only through the delivery workflows.
 */
export interface WebhookRoutesOptions<E extends AppEnv> {
  /** The service whose deliveries these routes show, e.g. 'messaging'. */
  service: string;
  /** The authenticated owner of the request (account, merchant…); set by the service's auth middleware. */
  ownerOf: (c: Context<E>) => string;
}

const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

const deliverySchema = z
  .object({
    id: z.string().openapi({
      description: 'Delivery id; sent as the `webhook-id` header',
      example: 'whd_3f2a9c0d1b7e4a6f8c2d5e10',
    }),
    endpointId: z.string().openapi({ example: 'whe_5b1e0c7a9d3f2e4b6a8c0d1e' }),
    url: z.string().openapi({ description: 'Where the event is POSTed', example: 'https://example.com/dlr' }),
    eventType: z.string().openapi({ example: 'message.status' }),
    eventId: z.string().openapi({
      description: 'Stable id of the event; one event is one delivery per URL',
      example: 'sms-0f8fad5b.delivered',
    }),
    subjectId: z
      .string()
      .nullable()
      .openapi({ description: 'The object the event is about (message id, lookup id)' }),
    status: z.enum(DELIVERY_STATUSES).openapi({
      description:
        '`pending` while attempts go on; `delivered` after a 2xx reply; `failed` when the retry schedule ran out',
    }),
    attemptCount: z.number().int().openapi({ example: 1 }),
    createdAt: z.string().openapi({ example: '2026-05-01T10:00:00.000Z' }),
    lastAttemptAt: z.string().nullable(),
    completedAt: z.string().nullable(),
  })
  .openapi('WebhookDelivery');

const attemptSchema = z
  .object({
    attempt: z.number().int().openapi({ description: '1 for the first attempt', example: 1 }),
    attemptedAt: z.string().openapi({ example: '2026-05-01T10:00:00.120Z' }),
    statusCode: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'HTTP status of the reply; null when none arrived', example: 200 }),
    latencyMs: z.number().int().openapi({ example: 84 }),
    error: z
      .string()
      .nullable()
      .openapi({
        description:
          'Why the attempt failed: `HTTP <status>`, or without an answer `timeout`, `connection_failed`, ' +
          '`host_not_found`, `tls_error`, `refused_by_policy` (the URL resolves to an address the outbound-URL ' +
          'policy refuses); in sandbox mode the socket error code instead',
      }),
    retryAfterMs: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The receiver's Retry-After, honoured up to 24 h" }),
  })
  .openapi('WebhookAttempt');

const deliveryDetailSchema = deliverySchema
  .extend({
    payload: z
      .record(z.string(), z.unknown())
      .openapi({ description: 'The event data (`data` of the signed body)' }),
    attempts: z.array(attemptSchema),
  })
  .openapi('WebhookDeliveryDetail');

const endpointSchema = z
  .object({
    id: z.string().openapi({ example: 'whe_5b1e0c7a9d3f2e4b6a8c0d1e' }),
    url: z.string().openapi({ example: 'https://example.com/dlr' }),
    secret: z.string().openapi({
      description:
        'Signing secret (Standard Webhooks): verify `webhook-signature` = `v1,` + base64 HMAC-SHA256 of ' +
        '"<webhook-id>.<webhook-timestamp>.<body>" keyed with the base64-decoded part after `whsec_`',
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    }),
    createdAt: z.string(),
  })
  .openapi('WebhookEndpoint');

const listDeliveriesRoute = createRoute({
  method: 'get',
  path: '/webhooks/deliveries',
  tags: ['Webhooks'],
  summary: 'List webhook deliveries',
  description: 'Deliveries of your callbacks (delivery reports, lookup results), newest first.',
  request: {
    query: z.object({
      subjectId: z.string().min(1).max(200).optional().openapi({
        description: 'Only deliveries about this object (e.g. a message id)',
        example: '0f8fad5b-d9cb-469f-a165-70867728950e',
      }),
      status: z.enum(DELIVERY_STATUSES).optional().openapi({ description: 'Only deliveries in this status' }),
      page: z.coerce.number().int().min(1).max(10_000).default(1).openapi({ example: 1 }),
      size: z.coerce.number().int().min(1).max(100).default(20).openapi({ example: 20 }),
    }),
  },
  responses: {
    200: {
      description: 'One page of deliveries',
      content: {
        'application/json': {
          schema: z
            .object({
              page: z.number().int(),
              size: z.number().int(),
              total: z
                .number()
                .int()
                .openapi({ description: 'Deliveries matching the filter, on all pages' }),
              items: z.array(deliverySchema),
            })
            .openapi('WebhookDeliveryPage'),
        },
      },
    },
    ...errorResponses,
  },
});

const getDeliveryRoute = createRoute({
  method: 'get',
  path: '/webhooks/deliveries/{id}',
  tags: ['Webhooks'],
  summary: 'Get a webhook delivery with all its attempts',
  request: {
    params: z.object({
      id: z
        .string()
        .min(1)
        .max(64)
        .openapi({ param: { name: 'id', in: 'path' }, example: 'whd_3f2a9c0d1b7e4a6f8c2d5e10' }),
    }),
  },
  responses: {
    200: {
      description: 'The delivery and its attempts, first attempt first',
      content: { 'application/json': { schema: deliveryDetailSchema } },
    },
    ...errorResponses,
  },
});

const listEndpointsRoute = createRoute({
  method: 'get',
  path: '/webhooks/endpoints',
  tags: ['Webhooks'],
  summary: 'List your webhook endpoints and their signing secrets',
  description: 'An endpoint is created with its own secret the first time a callback is sent to its URL.',
  responses: {
    200: {
      description: 'Your endpoints, oldest first',
      content: {
        'application/json': {
          schema: z.object({ items: z.array(endpointSchema) }).openapi('WebhookEndpointList'),
        },
      },
    },
    ...errorResponses,
  },
});

const deliveryColumns = {
  id: webhookDeliveries.id,
  endpointId: webhookDeliveries.endpointId,
  url: webhookEndpoints.url,
  eventType: webhookDeliveries.eventType,
  eventId: webhookDeliveries.eventId,
  subjectId: webhookDeliveries.subjectId,
  status: webhookDeliveries.status,
  attemptCount: webhookDeliveries.attemptCount,
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
  status: (typeof DELIVERY_STATUSES)[number];
  attemptCount: number;
  createdAt: Date;
  lastAttemptAt: Date | null;
  completedAt: Date | null;
}

function deliveryView(row: DeliveryRow) {
  return {
    id: row.id,
    endpointId: row.endpointId,
    url: row.url,
    eventType: row.eventType,
    eventId: row.eventId,
    subjectId: row.subjectId,
    status: row.status,
    attemptCount: row.attemptCount,
    createdAt: row.createdAt.toISOString(),
    lastAttemptAt: row.lastAttemptAt?.toISOString() ?? null,
    completedAt: row.completedAt?.toISOString() ?? null,
  };
}

export function registerWebhookRoutes<E extends AppEnv>(
  app: OpenAPIHono<E>,
  options: WebhookRoutesOptions<E>,
): void {
  const { service } = options;
  // Every AppEnv carries the deps; spelled out because TypeScript cannot resolve them through the generic E.
  const databaseOf = (c: Context<E>) => (c.get('deps') as ApiDeps).db;
  const ownedBy = (ownerId: string) =>
    and(eq(webhookDeliveries.service, service), eq(webhookDeliveries.ownerId, ownerId));

  app.openapi(listDeliveriesRoute, async (c) => {
    const { subjectId, status, page, size } = c.req.valid('query');
    const conditions: (SQL | undefined)[] = [ownedBy(options.ownerOf(c))];
    if (subjectId) conditions.push(eq(webhookDeliveries.subjectId, subjectId));
    if (status) conditions.push(eq(webhookDeliveries.status, status));
    const db = databaseOf(c);
    const [rows, [counted]] = await Promise.all([
      db
        .select(deliveryColumns)
        .from(webhookDeliveries)
        .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
        .where(and(...conditions))
        .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
        .limit(size)
        .offset((page - 1) * size),
      db
        .select({ total: count() })
        .from(webhookDeliveries)
        .where(and(...conditions)),
    ]);
    return c.json({ page, size, total: counted?.total ?? 0, items: rows.map(deliveryView) }, 200);
  });

  app.openapi(getDeliveryRoute, async (c) => {
    const db = databaseOf(c);
    const { id } = c.req.valid('param');
    const [row] = await db
      .select(deliveryColumns)
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(and(eq(webhookDeliveries.id, id), ownedBy(options.ownerOf(c))));
    // Another owner's delivery is "not found" too: existence is not leaked.
    if (!row) throw ApiError.notFound('Webhook delivery');
    const attempts = await db
      .select()
      .from(webhookAttempts)
      .where(eq(webhookAttempts.deliveryId, id))
      .orderBy(asc(webhookAttempts.attempt));
    return c.json(
      {
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
      },
      200,
    );
  });

  app.openapi(listEndpointsRoute, async (c) => {
    const rows = await databaseOf(c)
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.service, service), eq(webhookEndpoints.ownerId, options.ownerOf(c))))
      .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
    return c.json(
      {
        items: rows.map((row) => ({
          id: row.id,
          url: row.url,
          secret: row.secret,
          createdAt: row.createdAt.toISOString(),
        })),
      },
      200,
    );
  });
}
