import diagnostics from 'node:diagnostics_channel';
import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Config } from './config.ts';

/**
 * OpenTelemetry traces of this process (decision 0059): the API's span per request
 * (api/shared/observability.ts), Temporal's client, workflow and activity spans
 * (@temporalio/interceptors-opentelemetry; the workflow spans leave the sandbox through a sink), the
 * carrier submission and every outgoing HTTP request. Exported over OTLP/HTTP only when
 * OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set; otherwise no tracer provider is
 * registered, every span is a no-op and nothing leaves the process. Attributes name operations, types,
 * routes, hosts and status codes: never a path, query, body, phone number, code or token (payloads stay
 * sealed by the payload codec; only the trace context travels in Temporal headers).
 */
export interface Tracing {
  resource: Resource;
  spanProcessor: SpanProcessor;
  /** Flushes the spans still buffered and stops exporting. */
  shutdown(): Promise<void>;
}

let processTracing: Tracing | undefined;

/** The traces endpoint of the configuration, if any (`<OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces`). */
export function otlpTracesUrl(
  config: Pick<Config, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'>,
): string | undefined {
  if (config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (config.OTEL_EXPORTER_OTLP_ENDPOINT)
    return `${config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
  return undefined;
}

/**
 * Starts tracing for this process when an OTLP endpoint is configured, or with `spanProcessor` (tests:
 * an InMemorySpanExporter). Once per process (the tracer provider is global); a second call returns the
 * first one's. Undefined: tracing is off.
 */
export function startTracing(
  config: Pick<Config, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'>,
  processName: string,
  options: { spanProcessor?: SpanProcessor } = {},
): Tracing | undefined {
  if (processTracing) return processTracing;
  const url = otlpTracesUrl(config);
  if (!url && !options.spanProcessor) return undefined;
  const resource = new Resource({
    [ATTR_SERVICE_NAME]: process.env.OTEL_SERVICE_NAME || 'integration-platform',
    'platform.process': processName,
  });
  // OTEL_EXPORTER_OTLP_HEADERS (e.g. a collector's API key) is read by the exporter itself.
  const spanProcessor = options.spanProcessor ?? new BatchSpanProcessor(new OTLPTraceExporter({ url }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // The AsyncLocalStorage context manager and the W3C trace-context propagator the Temporal interceptors use.
  provider.register();
  const unsubscribe = traceOutgoingHttp();
  processTracing = {
    resource,
    spanProcessor,
    async shutdown() {
      unsubscribe();
      await provider.shutdown();
      // A later start in this process (a test's next platform) registers afresh.
      trace.disable();
      context.disable();
      propagation.disable();
      processTracing = undefined;
    },
  };
  return processTracing;
}

/**
 * A client span per outgoing HTTP request made with fetch (undici's diagnostics channels): method,
 * host, port and status code only (a path or query may hold a phone number or a credential). No trace
 * header is sent to the outside parties.
 */
function traceOutgoingHttp(): () => void {
  const tracer = trace.getTracer('integration-platform-http');
  const spans = new WeakMap<object, Span>();
  type UndiciRequest = { origin?: string | URL; method?: string };
  const onCreate = (message: unknown) => {
    const { request } = message as { request: UndiciRequest };
    let origin: URL | undefined;
    try {
      origin = request.origin ? new URL(String(request.origin)) : undefined;
    } catch {
      origin = undefined;
    }
    const method = request.method ?? 'GET';
    const span = tracer.startSpan(
      `${method} ${origin?.host ?? ''}`.trim(),
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'http.request.method': method,
          ...(origin
            ? {
                'server.address': origin.hostname,
                'server.port': Number(origin.port || (origin.protocol === 'https:' ? 443 : 80)),
                'url.scheme': origin.protocol.replace(':', ''),
              }
            : {}),
        },
      },
      context.active(),
    );
    spans.set(request, span);
  };
  const onHeaders = (message: unknown) => {
    const { request, response } = message as { request: object; response: { statusCode: number } };
    const span = spans.get(request);
    if (!span) return;
    span.setAttribute('http.response.status_code', response.statusCode);
    if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    spans.delete(request);
  };
  const onError = (message: unknown) => {
    const { request, error } = message as { request: object; error: Error };
    const span = spans.get(request);
    if (!span) return;
    span.setAttribute('error.type', (error as NodeJS.ErrnoException).code ?? error.name);
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
    spans.delete(request);
  };
  diagnostics.subscribe('undici:request:create', onCreate);
  diagnostics.subscribe('undici:request:headers', onHeaders);
  diagnostics.subscribe('undici:request:error', onError);
  return () => {
    diagnostics.unsubscribe('undici:request:create', onCreate);
    diagnostics.unsubscribe('undici:request:headers', onHeaders);
    diagnostics.unsubscribe('undici:request:error', onError);
  };
}
