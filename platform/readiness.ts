import type { Client } from '@temporalio/client';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';

/**
 * `GET /health` answers 200 only when the database answers, Temporal answers and at least one worker
 * polls the platform's task queue (otherwise started workflows would not move).
 */
export function createReadinessProbe(deps: {
  db: Database;
  temporal: Client;
  namespace: string;
  taskQueue: string;
}) {
  return async (): Promise<string[]> => {
    const notReady: string[] = [];
    const checks = await Promise.allSettled([
      deps.db.execute(sql`select 1`),
      deps.temporal.workflowService.describeTaskQueue({
        namespace: deps.namespace,
        taskQueue: { name: deps.taskQueue },
        taskQueueType: 1, // TASK_QUEUE_TYPE_WORKFLOW
      }),
    ]);
    if (checks[0].status === 'rejected') notReady.push('database');
    if (checks[1].status === 'rejected') notReady.push('temporal');
    else if ((checks[1].value.pollers ?? []).length === 0) notReady.push('worker');
    return notReady;
  };
}
