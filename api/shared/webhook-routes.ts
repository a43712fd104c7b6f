import { createRoute, type OpenAPIHono, type RouteConfig, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { UseCaseDeps } from '../../application/shared/deps.ts';
import { assertOutboundUrlField } from '../../application/shared/outbound-url.ts';
import { DELIVERY_STATUSES, type WebhookOwner, webhooks } from '../../application/webhooks/index.ts';
import type { AppEnv } from './context.ts';
import { errorBodySchema, errorResponses } from './errors.ts';
import { jsonBody } from './openapi.ts';

/**
 * Routes of the shared webhook delivery engine, mounted by each service under its base path: an owner
 * sees its own deliveries, every attempt of them, and its endpoints with their signing secrets; it can
 * create an endpoint (and read its secret) before the first delivery, rotate a secret, and replay a
 * failed delivery. The use cases are in application/webhooks/; everything else is written by the
 * delivery workflows.
 */
export interface WebhookRoutesOptions<E extends AppEnv> {
  /** The service whose deliveries these routes show, e.g. 'messaging'. */
  service: string;
  /** The authenticated owner of the request (account, merchant…); set by the service's auth middleware. */
  ownerOf: (c: Context<E>) => string | Promise<string>;
  /** OpenAPI security of the routes when the service's document has no global one (open banking). */
  security?: Record<string, string[]>[];
}

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
    replayCount: z
      .number()
      .int()
      .openapi({ description: 'How often you replayed it (`POST .../replay`)', example: 0 }),
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
          'policy refuses), `endpoint_deleted` (you deleted the endpoint: no request was sent); in sandbox mode ' +
          'the socket error code instead',
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
        'Current signing secret (Standard Webhooks): verify `webhook-signature` = `v1,` + base64 HMAC-SHA256 of ' +
        '"<webhook-id>.<webhook-timestamp>.<body>" keyed with the base64-decoded part after `whsec_`; the header ' +
        'may hold several space-separated signatures (during a rotation), accept the request when one matches. ' +
        'Stored encrypted; shown only to the endpoint’s owner',
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    }),
    secretRotatedAt: z
      .string()
      .nullable()
      .openapi({ description: 'When the secret was last rotated; null if never' }),
    previousSecretExpiresAt: z
      .string()
      .nullable()
      .openapi({
        description:
          'Until then every delivery is signed with the previous secret too (WEBHOOK_SECRET_ROTATION_OVERLAP ' +
          'after the rotation); null when there is no previous secret',
      }),
    createdAt: z.string(),
  })
  .openapi('WebhookEndpoint');

const endpointIdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'whe_5b1e0c7a9d3f2e4b6a8c0d1e' }),
});

const conflictResponse = {
  409: {
    description: 'The delivery is not failed: it was delivered, or attempts still go on',
    content: { 'application/json': { schema: errorBodySchema } },
  },
} as const;

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

/** The `{id}` of a delivery in its paths. */
const deliveryIdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'whd_3f2a9c0d1b7e4a6f8c2d5e10' }),
});

const getDeliveryRoute = createRoute({
  method: 'get',
  path: '/webhooks/deliveries/{id}',
  tags: ['Webhooks'],
  summary: 'Get a webhook delivery with all its attempts',
  request: {
    params: deliveryIdParams,
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
  description:
    'An endpoint is created with its own secret by `POST /webhooks/endpoints`, or the first time a callback is ' +
    'sent to its URL. Its callbacks are those whose URL is exactly the endpoint’s.',
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

const createEndpointRoute = createRoute({
  method: 'post',
  path: '/webhooks/endpoints',
  tags: ['Webhooks'],
  summary: 'Create a webhook endpoint and its signing secret before the first delivery',
  description:
    'Registers `url` as your endpoint with a new signing secret, so that you can configure your receiver before ' +
    'the first callback: callbacks whose URL is exactly this one are signed with it. The URL must be http(s) and ' +
    'may not lead inside the platform’s network (400 naming `url`). An existing endpoint for the same URL is ' +
    'answered as it is (200), with its current secret.',
  request: {
    body: jsonBody(
      z
        .object({
          url: z
            .string()
            .max(2048)
            .pipe(z.url({ protocol: /^https?$/, message: 'must be an http or https URL' }))
            .openapi({ description: 'The receiver', example: 'https://example.com/dlr' }),
        })
        .openapi('WebhookEndpointCreate'),
    ),
  },
  responses: {
    201: {
      description: 'Created, with its signing secret',
      content: { 'application/json': { schema: endpointSchema } },
    },
    200: {
      description: 'The endpoint for this URL existed already',
      content: { 'application/json': { schema: endpointSchema } },
    },
    ...errorResponses,
  },
});

const rotateSecretRoute = createRoute({
  method: 'post',
  path: '/webhooks/endpoints/{id}/rotate-secret',
  tags: ['Webhooks'],
  summary: 'Rotate an endpoint’s signing secret',
  description:
    'Replaces the signing secret with a new one, answered here (and listed by `GET /webhooks/endpoints`). For ' +
    '`WEBHOOK_SECRET_ROTATION_OVERLAP` (default 24 h) every delivery carries both signatures in ' +
    '`webhook-signature` (`v1,<new> v1,<old>`), so a receiver can switch to the new secret at any moment ' +
    'within it; after it, only the new one. Another owner’s endpoint is 404.',
  request: { params: endpointIdParam },
  responses: {
    200: {
      description: 'The endpoint with its new secret',
      content: { 'application/json': { schema: endpointSchema } },
    },
    ...errorResponses,
  },
});

const deleteEndpointRoute = createRoute({
  method: 'delete',
  path: '/webhooks/endpoints/{id}',
  tags: ['Webhooks'],
  summary: 'Delete a webhook endpoint',
  description:
    'Removes the endpoint from your list (e.g. the temporary one of `npm run webhooks -- listen`); its deliveries ' +
    'stay readable. A later callback to the same URL creates it again with a new secret. Another owner’s, or an ' +
    'already deleted, endpoint is 404.',
  request: { params: endpointIdParam },
  responses: {
    204: { description: 'Deleted' },
    ...errorResponses,
  },
});

const replayDeliveryRoute = createRoute({
  method: 'post',
  path: '/webhooks/deliveries/{id}/replay',
  tags: ['Webhooks'],
  summary: 'Replay a failed webhook delivery',
  description:
    'Delivers the same event (same `webhook-id`, same body) again in a new attempt series on the whole retry ' +
    'schedule, signed with the endpoint’s current secret(s). Its attempts are numbered on after the earlier ' +
    'ones and listed with them; `replayCount` counts the replays. Only a `failed` delivery can be replayed ' +
    '(409 otherwise); another owner’s delivery is 404.',
  request: {
    params: deliveryIdParams,
  },
  responses: {
    202: {
      description: 'Accepted: the delivery is `pending` again',
      content: { 'application/json': { schema: deliverySchema } },
    },
    ...errorResponses,
    ...conflictResponse,
  },
});

export function registerWebhookRoutes<E extends AppEnv>(
  app: OpenAPIHono<E>,
  options: WebhookRoutesOptions<E>,
): void {
  const secured = <R extends RouteConfig>(route: R): R =>
    options.security ? { ...route, security: options.security } : route;
  // Every AppEnv carries the deps; spelled out because TypeScript cannot resolve them through the generic E.
  const depsOf = (c: Context<E>) => c.get('deps') as UseCaseDeps;
  const ownerOf = async (c: Context<E>): Promise<WebhookOwner> => ({
    service: options.service,
    ownerId: await options.ownerOf(c),
  });

  app.openapi(secured(listDeliveriesRoute), async (c) =>
    c.json(
      await webhooks.listWebhookDeliveries(depsOf(c), { owner: await ownerOf(c), ...c.req.valid('query') }),
      200,
    ),
  );

  app.openapi(secured(getDeliveryRoute), async (c) =>
    c.json(
      await webhooks.getWebhookDelivery(depsOf(c), { owner: await ownerOf(c), id: c.req.valid('param').id }),
      200,
    ),
  );

  app.openapi(secured(listEndpointsRoute), async (c) =>
    c.json({ items: await webhooks.listWebhookEndpoints(depsOf(c), { owner: await ownerOf(c) }) }, 200),
  );

  app.openapi(secured(createEndpointRoute), async (c) => {
    const { url } = c.req.valid('json');
    // Checked before the owner is resolved, as it always was: a refused URL is a 400 before the 401.
    assertOutboundUrlField(depsOf(c).config, 'url', url);
    const { endpoint, created } = await webhooks.createWebhookEndpoint(depsOf(c), {
      owner: await ownerOf(c),
      url,
    });
    return created ? c.json(endpoint, 201) : c.json(endpoint, 200);
  });

  app.openapi(secured(rotateSecretRoute), async (c) =>
    c.json(
      await webhooks.rotateWebhookEndpointSecret(depsOf(c), {
        owner: await ownerOf(c),
        id: c.req.valid('param').id,
      }),
      200,
    ),
  );

  app.openapi(secured(deleteEndpointRoute), async (c) => {
    await webhooks.deleteWebhookEndpoint(depsOf(c), { owner: await ownerOf(c), id: c.req.valid('param').id });
    return c.body(null, 204);
  });

  app.openapi(secured(replayDeliveryRoute), async (c) =>
    c.json(
      await webhooks.replayWebhookDelivery(depsOf(c), {
        owner: await ownerOf(c),
        id: c.req.valid('param').id,
      }),
      202,
    ),
  );
}
