import { Context } from '@temporalio/activity';
import { ApplicationFailure, type DataConverter } from '@temporalio/common';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  type OpenTelemetryWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import {
  type ActivityExecuteInput,
  type ActivityInboundCallsInterceptor,
  type InjectedSink,
  type NativeConnection,
  type Next,
  Worker,
  type WorkerOptions,
} from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { ActivityFunctions } from '../activities/shared/deps.ts';
import { permanentFailureOf } from '../activities/shared/permanent-failures.ts';
import { platformTaskQueues } from '../domain/task-queues.ts';
import type { Logger } from '../platform/logger.ts';
import type { Tracing } from '../platform/tracing.ts';

export interface PlatformWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  /** TEMPORAL_TASK_QUEUE: the business lane; the delivery lane is derived from it (domain/task-queues.ts). */
  taskQueue: string;
  workflowBundlePath: string;
  /** The platform's data converter (platform/payload-codec.ts): every payload sealed. */
  dataConverter: DataConverter;
  /** Every service's activities (mergeActivities). */
  activities: ActivityFunctions;
  logger: Logger;
  /**
   * Tracing on (platform/tracing.ts): each activity runs in a span continuing its workflow's trace, and
   * the workflow spans (made by the interceptors in the traced bundle) leave the sandbox by the
   * `exporter` sink into this process's span processor.
   */
  tracing?: Tracing;
}

/**
 * One registry of the services' activities. Activity types are names without a service part, so two
 * services registering the same name would silently share one implementation: that stops the worker.
 */
export function mergeActivities(
  parts: readonly { service: string; activities: ActivityFunctions }[],
): ActivityFunctions {
  const merged: ActivityFunctions = {};
  const owner = new Map<string, string>();
  for (const { service, activities } of parts) {
    for (const [name, activity] of Object.entries(activities)) {
      const earlier = owner.get(name);
      if (earlier) {
        throw new Error(`Activity "${name}" is registered by both ${earlier} and ${service}: rename one`);
      }
      owner.set(name, service);
      merged[name] = activity;
    }
  }
  return merged;
}

/**
 * Failure types activities use to wait by retrying (a chat-app receipt not there yet): an attempt that
 * ends so is the designed poll, logged at debug as `waiting`, not as a warning.
 */
const WAITING_FAILURE_TYPES: ReadonlySet<string> = new Set(['InFlight']);

/** Whether an activity attempt's error is a designed wait (see WAITING_FAILURE_TYPES). */
export function isWaitingFailure(error: unknown): boolean {
  return error instanceof ApplicationFailure && WAITING_FAILURE_TYPES.has(error.type ?? '');
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
      const waiting = isWaitingFailure(error);
      this.logger[waiting ? 'debug' : 'warn'](
        {
          ...fields,
          outcome: waiting ? 'waiting' : 'failed',
          durationMs: Math.round(performance.now() - started),
          error: (error as Error).message,
        },
        'activity',
      );
      throw error;
    }
  }
}

/**
 * Every activity of every service: a database refusal of the data (SQLSTATE classes 22 and 23,
 * activities/shared/permanent-failures.ts) fails the attempt non-retryable (`DataRefused`), so that no
 * activity is retried for ever on data the database will always refuse (issue 20).
 */
export class PermanentFailures implements ActivityInboundCallsInterceptor {
  async execute(
    input: ActivityExecuteInput,
    next: Next<ActivityInboundCallsInterceptor, 'execute'>,
  ): Promise<unknown> {
    try {
      return await next(input);
    } catch (error) {
      throw permanentFailureOf(error) ?? error;
    }
  }
}

/**
 * The sink the traced bundle's workflow spans leave the sandbox by. The SDK's own exporter copies the
 * whole WorkflowInfo into each span's attributes (memo, search attributes, last failure); here the
 * span gets the workflow's identity only: its id (a business id), run, type, task queue and namespace.
 */
export function workflowSpanExporter(tracing: Tracing): InjectedSink<OpenTelemetryWorkflowExporter> {
  const exporter = makeWorkflowExporter(tracing.spanProcessor, tracing.resource);
  return {
    export: {
      fn: (info, spans) => {
        const identity = {
          workflowId: info.workflowId,
          runId: info.runId,
          workflowType: info.workflowType,
          taskQueue: info.taskQueue,
          namespace: info.namespace,
        };
        // The SDK merges this object into the attributes (Object.assign): the identity is all it gets.
        exporter.export.fn(identity as WorkflowInfo, spans);
      },
    },
  };
}

/**
 * Slots of every platform worker, shared with the benchmark's baseline worker (bench/baseline-server.ts)
 * so that a ratio compares the same tuning. These are the SDK's defaults, written out: on 2 cores the
 * server and the database, not the worker's slots, bound throughput (`npm run bench`); raise them on a
 * bigger worker machine. Sticky execution (the workflow cache) stays on: a cached workflow's next task
 * runs without replaying its history. The cache is bounded (decision 0036): the SDK's default sizes it
 * from the heap limit (about 2,300 workflows per worker on this machine, ~0.6 MB each), so 10,000
 * obligations waiting on their timers held the process at 3 GB; evicted ones replay when they wake.
 */
export const platformWorkerTuning = {
  maxCachedWorkflows: 400,
  maxConcurrentWorkflowTaskExecutions: 40,
  maxConcurrentActivityTaskExecutions: 100,
  maxConcurrentLocalActivityExecutions: 100,
} satisfies Partial<WorkerOptions>;

export interface PlatformWorkers {
  /** Polls TEMPORAL_TASK_QUEUE: business workflows and their activities. */
  business: Worker;
  /** Polls `<TEMPORAL_TASK_QUEUE>-delivery`: merchant notifications, webhook deliveries, their activities. */
  delivery: Worker;
}

/**
 * Creates the platform's two workers, one per task queue (decision 0024). Both register every workflow
 * type and every activity (a workflow started on the business lane before the lanes existed still
 * completes there); what separates them is where each workflow is started. Each has its own slots, so a
 * burst of business tasks cannot hold the delivery lane's.
 */
export async function createPlatformWorkers(options: PlatformWorkerOptions): Promise<PlatformWorkers> {
  const queues = platformTaskQueues(options.taskQueue);
  const { activities, tracing } = options;
  const create = (taskQueue: string) =>
    Worker.create({
      connection: options.connection,
      namespace: options.namespace,
      taskQueue,
      workflowBundle: { codePath: options.workflowBundlePath },
      dataConverter: options.dataConverter,
      activities,
      ...platformWorkerTuning,
      ...(tracing ? { sinks: { exporter: workflowSpanExporter(tracing) } } : {}),
      // The span (outermost, with tracing) covers the attempt; the log sees the failure as the
      // classification left it.
      interceptors: {
        activity: [
          ...(tracing
            ? [
                (ctx: Context) => ({
                  inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
                  outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
                }),
              ]
            : []),
          () => ({ inbound: new ActivityAttemptLog(options.logger) }),
          () => ({ inbound: new PermanentFailures() }),
        ],
      },
    });
  const business = await create(queues.business);
  const delivery = await create(queues.delivery);
  return { business, delivery };
}
