import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  ParentClosePolicy,
  proxyActivities,
  startChild,
  WorkflowIdReusePolicy,
  workflowInfo,
} from '@temporalio/workflow';
import type { RegisteredDelivery, WebhookActivities } from '../../activities/webhooks/index.ts';
import { BusinessStatus, OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import { deliveryTaskQueue } from '../../domain/task-queues.ts';
import {
  type WebhookDeliveryInput,
  type WebhookRequest,
  webhookDeliveryWorkflowId,
} from '../../domain/webhooks/processes.ts';

const { registerWebhookDelivery, webhookEndpointsOf } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Sends one event through the shared webhook delivery engine (the contract: WebhookRequest in
 * domain/webhooks/processes.ts; the delivery process itself: delivery.ts in this folder).
 * Starts (once) the durable delivery of one event to one endpoint and returns its delivery id
 * without waiting for the delivery to land. Call only from workflow code.
 */
export async function sendWebhook(request: WebhookRequest): Promise<string> {
  const delivery = await registerWebhookDelivery(request);
  if (!delivery.completed) await startDelivery(request, delivery);
  return delivery.deliveryId;
}

/**
 * Sends many events at once (decision 0074): one activity registers them and makes each one's first
 * attempt; only those that did not land get a durable delivery of their own, which goes on along the
 * retry schedule from that recorded first attempt. Call only from workflow code.
 */
export async function sendWebhooks(requests: WebhookRequest[]): Promise<void> {
  if (requests.length === 0) return;
  const { deliverWebhooks } = proxyActivities<WebhookActivities>({
    // Every first attempt in the batch may wait its request timeout (at most 16 at a time).
    startToCloseTimeout: '5 minutes',
    // The activity heartbeats: a worker that dies mid-burst is replaced in seconds, not 5 minutes.
    heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });
  const outcomes = await deliverWebhooks({ requests });
  const byEvent = new Map(requests.map((request) => [request.eventId, request]));
  await Promise.all(
    outcomes
      .filter((outcome) => outcome.retry)
      .map((outcome) => startDelivery(byEvent.get(outcome.eventId)!, outcome.delivery)),
  );
}

/** An event for every endpoint of its owner: a WebhookRequest without its receiver. */
export type OwnerEvent = Omit<WebhookRequest, 'service' | 'ownerId' | 'url' | 'urlParams' | 'endpointId'>;

/**
 * Sends events to every live endpoint of their owner (lending events, decision 0088): the endpoints are
 * read by an activity (its answer is in the history, so a replayed workflow sends to the same ones),
 * then the events are handed over together as by sendWebhooks, one delivery per event and endpoint (to
 * the endpoint as listed: one deleted since is not revived). An owner without endpoints is sent nothing. Call only from workflow code.
 */
export async function sendToEndpoints(
  owner: { service: string; ownerId: string },
  events: OwnerEvent[],
): Promise<void> {
  if (events.length === 0) return;
  const endpoints = await webhookEndpointsOf(owner);
  await sendWebhooks(
    endpoints.flatMap(({ id, url }) => events.map((event) => ({ ...owner, url, endpointId: id, ...event }))),
  );
}

/** Starts (once) the durable delivery of a registered event. */
async function startDelivery(request: WebhookRequest, delivery: RegisteredDelivery): Promise<void> {
  try {
    // By type name: delivery.ts imports this file, so importing its function here would be a cycle.
    const input: WebhookDeliveryInput = {
      deliveryId: delivery.deliveryId,
      format: request.format ?? 'standard-webhooks',
      eventType: request.eventType,
      retryScheduleMs: delivery.retryScheduleMs,
      requestTimeoutMs: delivery.requestTimeoutMs,
    };
    await startChild('webhookDelivery', {
      workflowId: webhookDeliveryWorkflowId(delivery.deliveryId),
      // The delivery lane (decision 0024): a burst of business workflows cannot hold the delivery.
      taskQueue: deliveryTaskQueue(workflowInfo().taskQueue),
      args: [input],
      // The caller's process goes on (and may end) while the delivery retries for hours.
      parentClosePolicy: ParentClosePolicy.ABANDON,
      // Even a finished delivery is never started a second time for the same event.
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: [
        { key: PlatformService, value: request.service },
        { key: OwnerId, value: request.ownerId },
        { key: BusinessStatus, value: 'pending' },
      ],
      staticSummary: `${request.eventType} webhook${request.subjectId ? ` for ${request.subjectId}` : ''}`,
    });
  } catch (error) {
    // Already started by an earlier call for the same event: that delivery is the one.
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
