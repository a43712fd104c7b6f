import type { Client } from '@temporalio/client';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { platformTaskQueues } from '../domain/task-queues.ts';

/** Default time each part of the platform has to answer the readiness probe. */
export const READINESS_PROBE_TIMEOUT_MS = 2_000;

/** `promise`, or a rejection once `ms` have passed without it settling. */
function within<T>(ms: number, work: PromiseLike<T>): Promise<T> {
  // Resolved once: a Drizzle query runs again on every `then`.
  const promise = Promise.resolve(work);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  promise.catch(() => {}); // a late rejection of an abandoned probe is not unhandled
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * `GET /health` answers 200 only when the database answers, Temporal answers and workers poll both of
 * the platform's task queues (otherwise started workflows, or their notifications and webhooks, would
 * not move): `worker` is missing for the business lane, `delivery-worker` for the delivery lane.
 * Each part is asked at the same time and given `timeoutMs`: a part that hangs is missing as surely as
 * one that refuses, and `/health` answers within that time.
 */
export function createReadinessProbe(deps: {
  db: Database;
  temporal: Client;
  namespace: string;
  taskQueue: string;
  /**
   * How long each part may take to answer: a part that hangs (a stopped process, a dropped network)
   * is reported missing after this, not waited for.
   */
  timeoutMs?: number;
}) {
  const timeoutMs = deps.timeoutMs ?? READINESS_PROBE_TIMEOUT_MS;
  const queues = platformTaskQueues(deps.taskQueue);
  // The gRPC deadline cancels the call itself (no retries past it); the race bounds it in any case.
  const pollers = (taskQueue: string) =>
    deps.temporal.connection.withDeadline(Date.now() + timeoutMs, () =>
      deps.temporal.workflowService.describeTaskQueue({
        namespace: deps.namespace,
        taskQueue: { name: taskQueue },
        taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
      }),
    );
  return async (): Promise<string[]> => {
    const notReady: string[] = [];
    const [database, business, delivery] = await Promise.allSettled([
      within(timeoutMs, deps.db.execute(sql`select 1`)),
      within(timeoutMs, pollers(queues.business)),
      within(timeoutMs, pollers(queues.delivery)),
    ]);
    if (database.status === 'rejected') notReady.push('database');
    if (business.status === 'rejected' || delivery.status === 'rejected') notReady.push('temporal');
    else {
      if ((business.value.pollers ?? []).length === 0) notReady.push('worker');
      if ((delivery.value.pollers ?? []).length === 0) notReady.push('delivery-worker');
    }
    return notReady;
  };
}
