import type { Client } from '@temporalio/client';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { platformTaskQueues } from '../domain/task-queues.ts';

/**
 * `GET /health` answers 200 only when the database answers, Temporal answers and workers poll both of
 * the platform's task queues (otherwise started workflows, or their notifications and webhooks, would
 * not move): `worker` is missing for the business lane, `delivery-worker` for the delivery lane.
 */
export function createReadinessProbe(deps: {
  db: Database;
  temporal: Client;
  namespace: string;
  taskQueue: string;
}) {
  const queues = platformTaskQueues(deps.taskQueue);
  const pollers = (taskQueue: string) =>
    deps.temporal.workflowService.describeTaskQueue({
      namespace: deps.namespace,
      taskQueue: { name: taskQueue },
      taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
    });
  return async (): Promise<string[]> => {
    const notReady: string[] = [];
    const [database, business, delivery] = await Promise.allSettled([
      deps.db.execute(sql`select 1`),
      pollers(queues.business),
      pollers(queues.delivery),
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
