import { proxyActivities, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import type { WebhookActivities } from '../../activities/webhooks/index.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';
import { delayBeforeNextAttempt, type WebhookDeliveryStatus } from '../../domain/webhooks/delivery.ts';
import type { WebhookDeliveryInput, WebhookRequest } from '../../domain/webhooks/processes.ts';
import { sendWebhook } from './send.ts';

const { completeWebhookDelivery } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * One event to one endpoint, attempt after attempt along the retry schedule, until the receiver
 * answers 2xx (delivered), the schedule is exhausted or the outbound-URL policy refuses the
 * destination (failed). A receiver's Retry-After can
 * lengthen a wait. Each attempt is signed afresh and recorded by the attempt activity.
 */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<WebhookDeliveryStatus> {
  // Retries here are for our own infrastructure (e.g. the database); HTTP outcomes come back as values.
  const { attemptWebhookDelivery } = proxyActivities<WebhookActivities>({
    startToCloseTimeout: input.requestTimeoutMs + 10_000,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });

  const first = input.firstAttempt ?? 1;
  for (let attempt = first; ; attempt++) {
    const outcome = await attemptWebhookDelivery({
      deliveryId: input.deliveryId,
      attempt,
      format: input.format,
      requestTimeoutMs: input.requestTimeoutMs,
    });
    if (outcome.ok) return finish(input.deliveryId, 'delivered', attempt);
    // Refused by the outbound-URL policy: no later attempt can succeed (decision 0027).
    if (outcome.permanent) return finish(input.deliveryId, 'failed', attempt);

    const wait = delayBeforeNextAttempt(input.retryScheduleMs, attempt - first + 1, outcome.retryAfterMs);
    if (wait === undefined) return finish(input.deliveryId, 'failed', attempt);
    await sleep(wait);
  }
}

async function finish(deliveryId: string, status: 'delivered' | 'failed', attempts: number) {
  upsertSearchAttributes([{ key: BusinessStatus, value: status }]);
  await completeWebhookDelivery({ deliveryId, status, attempts });
  return status;
}

/** Delivers one event from outside a workflow (admin tools, tests): start this with the request. */
export async function deliverEvent(request: WebhookRequest): Promise<string> {
  return sendWebhook(request);
}
