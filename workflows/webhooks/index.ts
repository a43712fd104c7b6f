import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  ParentClosePolicy,
  proxyActivities,
  startChild,
  WorkflowIdReusePolicy,
  workflowInfo,
} from '@temporalio/workflow';
import type { PlatformActivities } from '../../activities/index.ts';
import { BusinessStatus, OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import { deliveryTaskQueue } from '../../domain/task-queues.ts';
import type { WebhookFormat } from '../../domain/webhooks/delivery.ts';
import type { webhookDelivery } from './delivery.ts';

/**
 * Contract of the shared webhook delivery engine, as used from other workflows.
 * (The delivery process itself: see delivery.ts in this folder.)
 */
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

const { registerWebhookDelivery } = proxyActivities<PlatformActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * Starts (once) the durable delivery of one event to one endpoint and returns its delivery id
 * without waiting for the delivery to land. Call only from workflow code.
 */
export async function sendWebhook(request: WebhookRequest): Promise<string> {
  const delivery = await registerWebhookDelivery(request);
  if (delivery.completed) return delivery.deliveryId;
  try {
    // By type name: delivery.ts imports this file, so importing its function here would be a cycle.
    await startChild<typeof webhookDelivery>('webhookDelivery', {
      workflowId: webhookDeliveryWorkflowId(delivery.deliveryId),
      // The delivery lane (decision 0024): a burst of business workflows cannot hold the delivery.
      taskQueue: deliveryTaskQueue(workflowInfo().taskQueue),
      args: [
        {
          deliveryId: delivery.deliveryId,
          format: request.format ?? 'standard-webhooks',
          eventType: request.eventType,
          retryScheduleMs: delivery.retryScheduleMs,
          requestTimeoutMs: delivery.requestTimeoutMs,
        },
      ],
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
  return delivery.deliveryId;
}
