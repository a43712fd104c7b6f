import { ApplicationFailure, Context } from '@temporalio/activity';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { ensureWebhookEndpoint, liveWebhookEndpointsOf } from '../../credentials/webhooks/endpoints.ts';
import { signingSecretsOf, webhookSecretKey } from '../../credentials/webhooks/signing-secrets.ts';
import type { Database } from '../../db/client.ts';
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from '../../db/schema/webhooks.ts';
import { callbackFormats } from '../../domain/webhooks/callback-formats.ts';
import type { WebhookDeliveryStatus, WebhookFormat } from '../../domain/webhooks/delivery.ts';
import { webhookDeliveryId } from '../../domain/webhooks/identifiers.ts';
import type { WebhookRequest } from '../../domain/webhooks/processes.ts';
import { mapConcurrently } from '../../platform/concurrency.ts';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import type { WebhookOutcomes } from '../../platform/metrics.ts';
import { describeFetchError, outboundFetchFor, refusedByPolicy } from '../../platform/outbound-http.ts';

export interface WebhookActivityDeps {
  db: Database;
  config: Config;
  logger: Logger;
  /** Outbound HTTP; defaults to fetch under the outbound-URL policy (decision 0027). */
  fetch?: typeof fetch;
  /** Counts outcomes (Prometheus counters, decision 0059); none: not counted. */
  outcomes?: WebhookOutcomes;
}

export interface RegisteredDelivery {
  deliveryId: string;
  /** Already delivered or failed earlier: nothing to start. */
  completed: boolean;
  retryScheduleMs: number[];
  requestTimeoutMs: number;
}

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  retryAfterMs: number | null;
  /**
   * The outbound-URL policy refused the destination (decision 0027): no later attempt can succeed, so
   * the delivery ends now. Absent in outcomes recorded before this field existed.
   */
  permanent?: boolean;
}

/** Only scheme, host and path: query strings of customer URLs may carry credentials. */
/** The error of an attempt not made because the endpoint's owner deleted it; it ends the delivery. */
const ENDPOINT_DELETED = 'endpoint_deleted';

/** A recorded attempt error that no later attempt can heal. */
const endsDelivery = (error: string | null): boolean => refusedByPolicy(error) || error === ENDPOINT_DELETED;

function loggableUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid url)';
  }
}

/** The endpoint's URL with a delivery's own query parameters. */
function withParams(url: string, params: Record<string, string> | null): string {
  if (!params) return url;
  const target = new URL(url);
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
  return target.toString();
}

/**
 * Activities of the webhook delivery engine. HTTP outcomes are returned, never thrown: the workflow
 * owns the retry schedule (and ends a delivery at once on an outcome marked `permanent`). Activity retries only cover infrastructure failures (e.g. the database).
 */
export function createWebhookActivities(deps: WebhookActivityDeps) {
  const { db, config, logger } = deps;
  const send = deps.fetch ?? outboundFetchFor(config);
  const secretKey = webhookSecretKey(config);

  /** The owner's endpoint for this URL (created beforehand by its owner, or now with a fresh secret). */
  async function endpointFor(service: string, ownerId: string, url: string): Promise<string> {
    const { endpoint } = await ensureWebhookEndpoint(db, secretKey, { service, ownerId, url });
    return endpoint.id;
  }

  /** The schedule every delivery follows (the workflow's input). */
  const schedule = () => ({
    retryScheduleMs: config.WEBHOOK_RETRY_SCHEDULE,
    requestTimeoutMs: config.WEBHOOK_REQUEST_TIMEOUT,
  });

  /**
   * Registers endpoints and deliveries (both insert-if-absent), each owner's endpoint for a URL once,
   * the deliveries in one statement; answers each delivery's id and status.
   */
  async function registerDeliveries(requests: WebhookRequest[]) {
    const endpointIds = new Map<string, string>();
    const endpointKey = (request: WebhookRequest) =>
      JSON.stringify([request.service, request.ownerId, request.url]);
    for (const request of requests)
      if (!endpointIds.has(endpointKey(request)))
        endpointIds.set(
          endpointKey(request),
          request.endpointId ?? (await endpointFor(request.service, request.ownerId, request.url)),
        );
    const registered = requests.map((request) => {
      const endpointId = endpointIds.get(endpointKey(request))!;
      return { request, endpointId, deliveryId: webhookDeliveryId(request.eventId, endpointId) };
    });
    if (registered.length === 0) return [];
    await db
      .insert(webhookDeliveries)
      .values(
        registered.map(({ request, endpointId, deliveryId }) => ({
          id: deliveryId,
          endpointId,
          service: request.service,
          ownerId: request.ownerId,
          eventType: request.eventType,
          eventId: request.eventId,
          subjectId: request.subjectId ?? null,
          payload: request.payload,
          urlParams: request.urlParams ?? null,
          format: request.format ?? 'standard-webhooks',
          status: 'pending' as const,
        })),
      )
      .onConflictDoNothing({ target: webhookDeliveries.id });
    const statuses = new Map(
      (
        await db
          .select({ id: webhookDeliveries.id, status: webhookDeliveries.status })
          .from(webhookDeliveries)
          .where(
            inArray(
              webhookDeliveries.id,
              registered.map((entry) => entry.deliveryId),
            ),
          )
      ).map((row) => [row.id, row.status]),
    );
    return registered.map((entry) => ({ ...entry, status: statuses.get(entry.deliveryId) }));
  }

  /** Registers endpoint and delivery (both insert-if-absent) and hands the workflow its schedule. */
  async function registerDelivery(request: WebhookRequest): Promise<RegisteredDelivery> {
    const [delivery] = await registerDeliveries([request]);
    return {
      deliveryId: delivery!.deliveryId,
      completed: delivery!.status !== undefined && delivery!.status !== 'pending',
      ...schedule(),
    };
  }

  /** Attempt `attempt`'s outcome of each delivery that has it recorded (a retried activity). */
  async function recordedOutcomes(
    attempt: number,
    deliveryIds: string[],
  ): Promise<Map<string, AttemptOutcome>> {
    if (deliveryIds.length === 0) return new Map();
    const rows = await db
      .select()
      .from(webhookAttempts)
      .where(and(inArray(webhookAttempts.deliveryId, deliveryIds), eq(webhookAttempts.attempt, attempt)));
    return new Map(
      rows.map((recorded) => {
        const ok = recorded.statusCode !== null && recorded.statusCode >= 200 && recorded.statusCode < 300;
        const outcome: AttemptOutcome = {
          ok,
          statusCode: recorded.statusCode,
          retryAfterMs: recorded.retryAfterMs,
        };
        return [
          recorded.deliveryId,
          endsDelivery(recorded.error) ? { ...outcome, permanent: true } : outcome,
        ];
      }),
    );
  }

  /** What an attempt needs of each delivery: the event and its endpoint's URL and secrets. */
  async function deliveriesForAttempt(deliveryIds: string[]) {
    if (deliveryIds.length === 0) return new Map<string, never>();
    const rows = await db
      .select({
        deliveryId: webhookDeliveries.id,
        service: webhookDeliveries.service,
        eventType: webhookDeliveries.eventType,
        payload: webhookDeliveries.payload,
        urlParams: webhookDeliveries.urlParams,
        createdAt: webhookDeliveries.createdAt,
        url: webhookEndpoints.url,
        endpointId: webhookEndpoints.id,
        secretEncrypted: webhookEndpoints.secretEncrypted,
        previousSecretEncrypted: webhookEndpoints.previousSecretEncrypted,
        previousSecretExpiresAt: webhookEndpoints.previousSecretExpiresAt,
        endpointDeletedAt: webhookEndpoints.deletedAt,
      })
      .from(webhookDeliveries)
      .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
      .where(inArray(webhookDeliveries.id, deliveryIds));
    return new Map(rows.map((row) => [row.deliveryId, row]));
  }
  type DeliveryForAttempt = NonNullable<
    Awaited<ReturnType<typeof deliveriesForAttempt>> extends Map<string, infer D> ? D : never
  >;

  /** Calls the receiver once, signed afresh; no database. */
  async function callReceiver(delivery: DeliveryForAttempt, input: Omit<AttemptInput, 'deliveryId'>) {
    const format = callbackFormats[input.format];
    const attemptedAt = new Date();
    const request = format.buildRequest(
      {
        deliveryId: delivery.deliveryId,
        eventType: delivery.eventType,
        occurredAt: delivery.createdAt,
        payload: delivery.payload,
      },
      // The current secret, and the previous one while a rotation's overlap lasts.
      signingSecretsOf(
        secretKey,
        {
          id: delivery.endpointId,
          secretEncrypted: delivery.secretEncrypted,
          previousSecretEncrypted: delivery.previousSecretEncrypted,
          previousSecretExpiresAt: delivery.previousSecretExpiresAt,
        },
        attemptedAt,
      ),
      attemptedAt,
    );
    const started = performance.now();
    let outcome: AttemptOutcome;
    let error: string | null = null;
    if (delivery.endpointDeletedAt !== null) {
      // Its owner deleted the endpoint (e.g. `webhooks listen` ended): nobody listens there any more.
      error = ENDPOINT_DELETED;
      outcome = { ok: false, statusCode: null, retryAfterMs: null, permanent: true };
    } else
      try {
        const response = await send(withParams(delivery.url, delivery.urlParams), {
          method: request.method,
          headers: request.headers,
          body: request.body,
          redirect: 'manual', // a redirect is not an acknowledgement
          signal: AbortSignal.timeout(input.requestTimeoutMs),
        });
        await response.body?.cancel(); // the reply body means nothing to us
        const reply = format.interpretReply(
          { status: response.status, headers: response.headers },
          new Date(),
        );
        outcome = { ok: reply.ok, statusCode: response.status, retryAfterMs: reply.retryAfterMs ?? null };
        if (!reply.ok) error = `HTTP ${response.status}`;
      } catch (failure) {
        error = describeFetchError(failure);
        outcome = { ok: false, statusCode: null, retryAfterMs: null };
        if (refusedByPolicy(error)) outcome.permanent = true;
      }
    const latencyMs = Math.round(performance.now() - started);
    const made = { delivery, attempt: input.attempt, attemptedAt, outcome, error, latencyMs };
    logger.info(
      {
        kind: 'webhook.attempt',
        workflowId: Context.current().info.workflowExecution?.workflowId,
        deliveryId: delivery.deliveryId,
        attempt: input.attempt,
        url: loggableUrl(delivery.url),
        ok: outcome.ok,
        statusCode: outcome.statusCode,
        latencyMs,
        retryAfterMs: outcome.retryAfterMs,
        error,
      },
      'webhook attempt',
    );
    deps.outcomes?.attempt({
      service: delivery.service,
      eventType: delivery.eventType,
      outcome: outcome.ok ? 'delivered' : outcome.permanent ? 'failed' : 'retrying',
    });
    return made;
  }

  /** Records attempts made, once per delivery and number, in two statements for all. */
  async function recordAttempts(made: Array<Awaited<ReturnType<typeof callReceiver>>>): Promise<void> {
    if (made.length === 0) return;
    await db
      .insert(webhookAttempts)
      .values(
        made.map((each) => ({
          deliveryId: each.delivery.deliveryId,
          attempt: each.attempt,
          attemptedAt: each.attemptedAt,
          statusCode: each.outcome.statusCode,
          latencyMs: each.latencyMs,
          error: each.error,
          retryAfterMs: each.outcome.retryAfterMs,
        })),
      )
      .onConflictDoNothing({ target: [webhookAttempts.deliveryId, webhookAttempts.attempt] });
    const rows = made.map(
      (each) =>
        sql`(${each.delivery.deliveryId}, ${each.attempt}::integer, ${each.attemptedAt.toISOString()}::timestamptz)`,
    );
    await db
      .update(webhookDeliveries)
      .set({
        attemptCount: sql`greatest(${webhookDeliveries.attemptCount}, v.attempt)`,
        lastAttemptAt: sql`v.attempted_at`,
      })
      .from(sql`(values ${sql.join(rows, sql`, `)}) as v(id, attempt, attempted_at)`)
      .where(sql`${webhookDeliveries.id} = v.id`);
  }

  /**
   * One HTTP attempt, recorded once per attempt number. A retry after the attempt was recorded returns
   * the recorded outcome instead of calling the receiver again.
   */
  async function attemptDelivery(input: AttemptInput): Promise<AttemptOutcome> {
    const recorded = (await recordedOutcomes(input.attempt, [input.deliveryId])).get(input.deliveryId);
    if (recorded) return recorded;
    const delivery = (await deliveriesForAttempt([input.deliveryId])).get(input.deliveryId);
    if (!delivery)
      throw ApplicationFailure.nonRetryable(`webhook delivery ${input.deliveryId} is not recorded`);
    const made = await callReceiver(delivery, input);
    await recordAttempts([made]);
    return made.outcome;
  }

  /** Writes the final status of deliveries and the number of attempts it took. */
  async function completeDeliveries(
    deliveryIds: string[],
    status: Exclude<WebhookDeliveryStatus, 'pending'>,
    attempts: number,
  ): Promise<void> {
    if (deliveryIds.length === 0) return;
    const finished = await db
      .update(webhookDeliveries)
      .set({ status, attemptCount: attempts, completedAt: new Date() })
      .where(inArray(webhookDeliveries.id, deliveryIds))
      .returning({ service: webhookDeliveries.service, eventType: webhookDeliveries.eventType });
    for (const row of finished)
      deps.outcomes?.finished({ service: row.service, eventType: row.eventType, status });
  }

  /** Writes the final status and the number of attempts it took. */
  async function completeDelivery(input: {
    deliveryId: string;
    status: Exclude<WebhookDeliveryStatus, 'pending'>;
    attempts: number;
  }): Promise<void> {
    await completeDeliveries([input.deliveryId], input.status, input.attempts);
  }

  return {
    registerWebhookDelivery: registerDelivery,
    attemptWebhookDelivery: attemptDelivery,
    completeWebhookDelivery: completeDelivery,

    /**
     * An owner's live endpoints, oldest first: where an event of a service that sends every event to
     * every endpoint of its owner goes (lending events, decision 0088).
     */
    async webhookEndpointsOf(owner: {
      service: string;
      ownerId: string;
    }): Promise<Array<{ id: string; url: string }>> {
      const rows = await liveWebhookEndpointsOf(db, owner);
      return rows.map(({ id, url }) => ({ id, url }));
    },

    /**
     * Many events at once (a batch of delivery reports, decision 0074): each registered as by
     * registerWebhookDelivery and attempted once, concurrently; the delivered and the refused for good
     * are completed here. The others come back with their schedule: the calling workflow starts their
     * durable deliveries, whose first attempt is the one recorded here (attempts are recorded once per
     * number), so they go on along the schedule as if they had started alone.
     */
    async deliverWebhooks(input: {
      requests: WebhookRequest[];
    }): Promise<Array<{ eventId: string; delivery: RegisteredDelivery; retry: boolean }>> {
      // Alive while its requests run: a worker that dies mid-burst is noticed by its silence (issue 37).
      const context = Context.current();
      const heartbeat = setInterval(() => context.heartbeat(), 2_000);
      try {
        return await deliverBurst(input.requests);
      } finally {
        clearInterval(heartbeat);
      }
    },
  };

  async function deliverBurst(
    requests: WebhookRequest[],
  ): Promise<Array<{ eventId: string; delivery: RegisteredDelivery; retry: boolean }>> {
    const registered = await registerDeliveries(requests);
    const pending = registered.filter((entry) => entry.status === 'pending');
    // A retried activity finds the first attempts it already made.
    const outcomes = await recordedOutcomes(
      1,
      pending.map((entry) => entry.deliveryId),
    );
    const toAttempt = pending.filter((entry) => !outcomes.has(entry.deliveryId));
    const deliveries = await deliveriesForAttempt(toAttempt.map((entry) => entry.deliveryId));
    const made = await mapConcurrently(toAttempt, CONCURRENT_ATTEMPTS, ({ request, deliveryId }) => {
      const delivery = deliveries.get(deliveryId);
      if (!delivery) throw ApplicationFailure.nonRetryable(`webhook delivery ${deliveryId} is not recorded`);
      return callReceiver(delivery, {
        attempt: 1,
        format: request.format ?? 'standard-webhooks',
        requestTimeoutMs: config.WEBHOOK_REQUEST_TIMEOUT,
      });
    });
    await recordAttempts(made);
    for (const each of made) outcomes.set(each.delivery.deliveryId, each.outcome);
    const ended = (ok: boolean) =>
      pending
        .filter((entry) => {
          const outcome = outcomes.get(entry.deliveryId);
          return outcome && (ok ? outcome.ok : !outcome.ok && outcome.permanent === true);
        })
        .map((entry) => entry.deliveryId);
    await completeDeliveries(ended(true), 'delivered', 1);
    await completeDeliveries(ended(false), 'failed', 1);
    return registered.map(({ request, deliveryId, status }) => {
      const outcome = outcomes.get(deliveryId);
      const retry = status === 'pending' && !outcome?.ok && !outcome?.permanent;
      return {
        eventId: request.eventId,
        delivery: { deliveryId, completed: !retry, ...schedule() },
        retry,
      };
    });
  }
}

/** Attempts of one deliverWebhooks call in flight at once. */
const CONCURRENT_ATTEMPTS = 16;

interface AttemptInput {
  deliveryId: string;
  attempt: number;
  format: WebhookFormat;
  requestTimeoutMs: number;
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
