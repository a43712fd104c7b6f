import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  ParentClosePolicy,
  proxyActivities,
  startChild,
  WorkflowIdReusePolicy,
  workflowInfo,
} from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhooks/index.ts';
import { BusinessStatus, OwnerId, PlatformService } from '../../domain/search-attributes.ts';
import { deliveryTaskQueue } from '../../domain/task-queues.ts';
import {
  type WebhookDeliveryInput,
  type WebhookRequest,
  webhookDeliveryWorkflowId,
} from '../../domain/webhooks/processes.ts';

const { registerWebhookDelivery } = proxyActivities<WebhookActivities>({
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
  if (delivery.completed) return delivery.deliveryId;
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
  return delivery.deliveryId;
}
