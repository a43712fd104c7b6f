import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import {
  type ActivityExecuteInput,
  type ActivityInboundCallsInterceptor,
  type NativeConnection,
  type Next,
  Worker,
} from '@temporalio/worker';
import { type ActivityDeps, createActivities } from '../activities/index.ts';
import type { Logger } from './logger.ts';
import { routeDeliveryReceipts } from './receipts.ts';

export interface PlatformWorkerOptions {
  connection: NativeConnection;
  /** Client used to signal workflows when outside events (delivery receipts) arrive at the worker. */
  client: Client;
  namespace: string;
  taskQueue: string;
  workflowBundlePath: string;
  deps: ActivityDeps;
  logger: Logger;
}

/** One JSON log line per activity attempt, with the workflow id, outcome and duration. */
class ActivityAttemptLog implements ActivityInboundCallsInterceptor {
  constructor(private readonly logger: Logger) {}

  async execute(
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    const { info } = Context.current();
    const fields = {
      kind: 'activity',
      activityType: info.activityType,
      workflowId: info.workflowExecution?.workflowId,
      runId: info.workflowExecution?.runId,
      attempt: info.attempt,
    };
    const started = performance.now();
    try {
      const result = await next(input);
      this.logger.info(
        { ...fields, outcome: 'completed', durationMs: Math.round(performance.now() - started) },
        'activity',
      );
      return result;
    } catch (error) {
      this.logger.warn(
        {
          ...fields,
          outcome: 'failed',
          durationMs: Math.round(performance.now() - started),
          error: (error as Error).message,
        },
        'activity',
      );
      throw error;
    }
  }
}

/** Creates the platform worker: every workflow type and every activity, on one task queue. */
export async function createPlatformWorker(options: PlatformWorkerOptions): Promise<Worker> {
  const worker = await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowBundle: { codePath: options.workflowBundlePath },
    activities: createActivities(options.deps),
    interceptors: { activity: [() => ({ inbound: new ActivityAttemptLog(options.logger) })] },
  });
  routeDeliveryReceipts({
    carrier: options.deps.carrier,
    db: options.deps.db,
    client: options.client,
    logger: options.logger,
  });
  return worker;
}
