import { proxyActivities, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import type { PlatformActivities } from '../../activities/index.ts';
import { BusinessStatus } from '../../domain/search-attributes.ts';
import {
  delayBeforeNextAttempt,
  type WebhookDeliveryStatus,
  type WebhookFormat,
} from '../../domain/webhooks/delivery.ts';
import { sendWebhook, type WebhookRequest } from './index.ts';

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
}

const { completeWebhookDelivery } = proxyActivities<PlatformActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * One event to one endpoint, attempt after attempt along the retry schedule, until the receiver
 * answers 2xx (delivered) or the schedule is exhausted (failed). A receiver's Retry-After can
 * lengthen a wait. Each attempt is signed afresh and recorded by the attempt activity.
 */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<WebhookDeliveryStatus> {
  // Retries here are for our own infrastructure (e.g. the database); HTTP outcomes come back as values.
  const { attemptWebhookDelivery } = proxyActivities<PlatformActivities>({
    startToCloseTimeout: input.requestTimeoutMs + 10_000,
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  });

  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptWebhookDelivery({
      deliveryId: input.deliveryId,
      attempt,
      format: input.format,
      requestTimeoutMs: input.requestTimeoutMs,
    });
    if (outcome.ok) return finish(input.deliveryId, 'delivered', attempt);

    const wait = delayBeforeNextAttempt(input.retryScheduleMs, attempt, outcome.retryAfterMs);
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
