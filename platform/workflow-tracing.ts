/**
 * The workflow interceptors of the traced bundle (decision 0059; platform/workflow-bundle.ts), built on
 * @temporalio/interceptors-opentelemetry's parts. Two differences from that package's interceptors:
 *
 * - A workflow is traced only when its start carried a trace context (its start headers, part of its
 *   history): one started before tracing was switched on, or by a process without tracing, runs exactly
 *   as without interceptors, on replay too. The package instruments every workflow, and on a history
 *   recorded without it adds the yields of its early versions (its SDK flags cannot tell "recorded
 *   without the interceptors" from "recorded with an old version"): a loan continued-as-new with an
 *   Update in flight then fails replay with a nondeterminism error (test/replay/replay.test.ts).
 * - Spans are made around the workflow run and the commands it schedules (activities, local activities,
 *   child workflows, signals, continue-as-new), not around signal, update and query handlers, whose
 *   completion order relative to the main code must stay as it is without tracing.
 *
 * Spans leave the sandbox through the `exporter` sink (cmd/worker.ts), which names the workflow by
 * its identity only.
 */
import '@temporalio/interceptors-opentelemetry/lib/workflow/runtime.js';
import * as otel from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import {
  extractContextFromHeaders,
  headersWithContext,
  instrument,
  TRACE_HEADER,
} from '@temporalio/interceptors-opentelemetry/lib/instrumentation.js';
import { ContextManager } from '@temporalio/interceptors-opentelemetry/lib/workflow/context-manager.js';
import { SpanExporter } from '@temporalio/interceptors-opentelemetry/lib/workflow/span-exporter.js';
import {
  ContinueAsNew,
  type Next,
  type WorkflowInterceptors,
  type WorkflowOutboundCallsInterceptor,
  workflowInfo,
} from '@temporalio/workflow';

let contextManager: ContextManager | undefined;
let tracer: otel.Tracer | undefined;

function workflowTracer(): otel.Tracer {
  if (!tracer) {
    contextManager = new ContextManager();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(new SpanExporter())],
    });
    provider.register({ contextManager });
    tracer = provider.getTracer('@temporalio/interceptor-workflow');
  }
  return tracer;
}

/** Whether this workflow's run is traced: a command is scheduled inside its run span. */
const inTrace = () => tracer !== undefined && otel.trace.getSpan(otel.context.active()) !== undefined;

/** Wraps a command in a span and hands the trace context to its target in the headers. */
function traced<Input extends { headers: Record<string, unknown> }, Output>(
  spanName: string,
  input: Input,
  next: (input: Input) => Promise<Output>,
  acceptableErrors?: (error: unknown) => boolean,
): Promise<Output> {
  if (!inTrace()) return next(input);
  return instrument({
    tracer: workflowTracer(),
    spanName,
    fn: async () => next({ ...input, headers: headersWithContext(input.headers as never) }),
    ...(acceptableErrors ? { acceptableErrors } : {}),
  });
}

type Outbound = Required<
  Pick<
    WorkflowOutboundCallsInterceptor,
    | 'scheduleActivity'
    | 'scheduleLocalActivity'
    | 'startChildWorkflowExecution'
    | 'signalWorkflow'
    | 'continueAsNew'
  >
>;

const outbound: Outbound = {
  scheduleActivity: (input, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>) =>
    traced(`StartActivity:${input.activityType}`, input, next),
  scheduleLocalActivity: (input, next: Next<WorkflowOutboundCallsInterceptor, 'scheduleLocalActivity'>) =>
    traced(`StartActivity:${input.activityType}`, input, next),
  startChildWorkflowExecution: (
    input,
    next: Next<WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ) => traced(`StartChildWorkflow:${input.workflowType}`, input, next),
  signalWorkflow: (input, next: Next<WorkflowOutboundCallsInterceptor, 'signalWorkflow'>) =>
    traced(`SignalWorkflow:${input.signalName}`, input, next),
  continueAsNew: (input, next: Next<WorkflowOutboundCallsInterceptor, 'continueAsNew'>) =>
    traced(
      `ContinueAsNew:${input.options.workflowType}`,
      input,
      next,
      (error) => error instanceof ContinueAsNew,
    ),
};

export const interceptors = (): WorkflowInterceptors => ({
  inbound: [
    {
      execute(input, next) {
        // Started without tracing: runs as without interceptors.
        if (input.headers[TRACE_HEADER] === undefined) return next(input);
        // The tracer first: it registers the propagator that reads the context.
        const tracer = workflowTracer();
        return instrument({
          tracer,
          spanName: `RunWorkflow:${workflowInfo().workflowType}`,
          fn: () => next(input),
          context: extractContextFromHeaders(input.headers),
          acceptableErrors: (error: unknown) => error instanceof ContinueAsNew,
        });
      },
    },
  ],
  outbound: [outbound],
  internals: [
    {
      dispose(input, next) {
        contextManager?.disable();
        return next(input);
      },
    },
  ],
});
