/**
 * The platform's two Temporal task queues (decision 0024). Business workflows and their activities run
 * on TEMPORAL_TASK_QUEUE; outbound deliveries (merchant notifications, webhooks) and their activities run
 * on its delivery lane, `<TEMPORAL_TASK_QUEUE>-delivery`, polled by a worker of their own in every worker
 * process, so that a burst of business work (10,000 obligations expiring in one second) cannot keep the
 * deliveries of its outcomes waiting behind it. Pure: usable from workflow code.
 */

const DELIVERY_SUFFIX = '-delivery';

/**
 * The delivery lane of a platform task queue. Given the lane itself it answers the lane, so workflow
 * code may pass its own `workflowInfo().taskQueue` whichever lane it runs on.
 */
export function deliveryTaskQueue(taskQueue: string): string {
  return taskQueue.endsWith(DELIVERY_SUFFIX) ? taskQueue : `${taskQueue}${DELIVERY_SUFFIX}`;
}

/** Every queue a worker process polls (and `GET /health` checks): business first, then delivery. */
export function platformTaskQueues(taskQueue: string): { business: string; delivery: string } {
  return { business: taskQueue, delivery: deliveryTaskQueue(taskQueue) };
}
