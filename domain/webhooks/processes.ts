import type { WebhookFormat } from './delivery.ts';

/**
 * The webhook delivery engine as its callers see it: the request a service's workflow hands over, and
 * the workflow id of a delivery. (Workflow ids of every service: `<process>-<business id>`, see
 * docs/decisions/0025-layout-one-house.md.)
 */

/** One event to deliver: what a service's workflow hands to the engine (workflows/webhooks/index.ts). */
export interface WebhookRequest {
  /** Owning service, e.g. 'messaging'. */
  service: string;
  /** Owner inside the service (account, agent, merchant); attempts are readable only by it. */
  ownerId: string;
  /** The receiver: the endpoint (with its signing secret) is the owner's row for this URL. */
  url: string;
  /**
   * Query parameters of this delivery only (e.g. a correlation `state`), added to `url` on every
   * attempt. They are not part of the endpoint, so one receiver URL stays one endpoint however many
   * deliveries with their own parameters it gets.
   */
  urlParams?: Record<string, string>;
  /**
   * The owner's endpoint for `url` as the sender listed it (`webhookEndpointsOf`: events sent to every
   * endpoint of their owner, decision 0088): used as it is, never created nor revived, so an endpoint
   * deleted since the listing gets the engine's `endpoint_deleted` instead of a new secret.
   */
  endpointId?: string;
  /** e.g. 'message.status', 'hlr.result'. */
  eventType: string;
  /** Stable id of the event: the same event to the same endpoint is only ever one delivery. */
  eventId: string;
  /** The business object the event is about (message id, lookup id), for listing attempts. */
  subjectId?: string;
  payload: Record<string, unknown>;
  /**
   * Wire format of the attempts; 'standard-webhooks' (the default) unless the service's own
   * specification prescribes another callback format (see domain/webhooks/callback-formats.ts).
   */
  format?: WebhookFormat;
}

/** Business id as workflow id: one delivery of one event to one endpoint is one workflow. */
export const webhookDeliveryWorkflowId = (deliveryId: string) => `webhook-${deliveryId}`;

/** Input of the `webhookDelivery` workflow (workflows/webhooks/delivery.ts), started by sendWebhook. */
export interface WebhookDeliveryInput {
  deliveryId: string;
  /**
   * How each attempt builds its request and reads the reply. The schedule, the attempt records and
   * the read API are shared by every format; only the attempt activity looks at this. A service whose
   * specification prescribes another callback format (the payment-collection merchant notifications)
   * adds it in domain/webhooks/callback-formats.ts and names it in its WebhookRequest.
   */
  format: WebhookFormat;
  /** For people reading the workflow in the Web UI. */
  eventType: string;
  /** Delays after each failed attempt; when they run out the delivery has failed. */
  retryScheduleMs: number[];
  requestTimeoutMs: number;
  /**
   * Number of this run's first attempt: 1, or for a replay of a failed delivery the attempt after its
   * last one (a new attempt series on the whole schedule; attempt records stay one per number).
   */
  firstAttempt?: number;
}

/** A failed delivery replayed by its owner: its `replay`-th new attempt series, a workflow of its own. */
export const webhookReplayWorkflowId = (deliveryId: string, replay: number) =>
  `webhook-${deliveryId}-replay-${replay}`;
