import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MetricTags } from '@temporalio/common';
import type { MetricsBuffer } from '@temporalio/worker';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Config } from './config.ts';
import type { Logger } from './logger.ts';

/**
 * The Prometheus metrics of one process (decision 0059): its HTTP requests (by route template, never
 * the raw path), its webhook delivery outcomes, the Temporal SDK's worker metrics (Core's, drained from
 * its metrics buffer) and Node's process metrics, in one registry served by one listener apart from the
 * API (`METRICS_PORT` on `METRICS_HOST`, loopback by default). Labels carry no personal data: routes,
 * methods, status codes, event types, task queues and workflow or activity types.
 */

/** Request latencies: 5 ms to 30 s (an API answer is usually a few ms; a bulk upload or a slow bank seconds). */
const LATENCY_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** The SDK's latencies (schedule-to-start, task execution, poll): 1 ms to 60 s. */
const TEMPORAL_BUCKETS_S = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** Where the API reports each answered request (api/shared/observability.ts observes them). */
export interface RequestMetrics {
  observe(request: { method: string; route: string; status: number }, seconds: number): void;
}

/**
 * Where webhook delivery outcomes are counted (activities/webhooks/ reports them). An attempt is
 * `delivered`, `retrying` (it failed; the schedule decides whether another follows) or `failed` (no
 * later attempt can succeed); a delivery finishes `delivered` or `failed`.
 */
export interface WebhookOutcomes {
  attempt(outcome: {
    service: string;
    eventType: string;
    outcome: 'delivered' | 'retrying' | 'failed';
  }): void;
  finished(outcome: { service: string; eventType: string; status: 'delivered' | 'failed' }): void;
}

export interface PlatformMetrics {
  registry: Registry;
  requests: RequestMetrics;
  webhooks: WebhookOutcomes;
  /** Use cases called through a service's facade (application/shared/facade.ts). */
  useCases: UseCaseMetrics;
  /** Drains the Temporal runtime's metrics buffer (cmd/runtime.ts installs it) from now on. */
  readTemporalBuffer(buffer: MetricsBuffer): void;
  /** This process's metrics in Prometheus text format, the SDK's updates up to this moment included. */
  render(): Promise<string>;
}

/** One use case's call: its service, its name on the facade and how it ended. */
export interface UseCaseMetrics {
  observe(
    call: { service: string; useCase: string; outcome: 'ok' | 'refused' | 'failed' },
    seconds: number,
  ): void;
}

let processMetrics: PlatformMetrics | undefined;

/** This process's metrics: one registry per process, as the Temporal runtime is one per process. */
export function platformMetrics(): PlatformMetrics {
  processMetrics ??= createPlatformMetrics();
  return processMetrics;
}

function createPlatformMetrics(): PlatformMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status'] as const;
  const requestsTotal = new Counter({
    name: 'platform_http_requests_total',
    help: 'HTTP requests answered by the API, by method, route template and status code',
    labelNames,
    registers: [registry],
  });
  const requestDuration = new Histogram({
    name: 'platform_http_request_duration_seconds',
    help: 'Time to answer an HTTP request (headers written), by method, route template and status code',
    labelNames,
    buckets: LATENCY_BUCKETS_S,
    registers: [registry],
  });
  const webhookAttempts = new Counter({
    name: 'platform_webhook_attempts_total',
    help: 'Webhook delivery attempts by service, event type and outcome (delivered, retrying, failed)',
    labelNames: ['service', 'event_type', 'outcome'] as const,
    registers: [registry],
  });
  const webhookDeliveries = new Counter({
    name: 'platform_webhook_deliveries_total',
    help: 'Webhook deliveries finished, by service, event type and final status (delivered, failed)',
    labelNames: ['service', 'event_type', 'status'] as const,
    registers: [registry],
  });
  const useCaseDuration = new Histogram({
    name: 'platform_use_case_duration_seconds',
    help: 'Time a use case took, by service, use case and outcome (ok, refused, failed)',
    labelNames: ['service', 'use_case', 'outcome'] as const,
    buckets: LATENCY_BUCKETS_S,
    registers: [registry],
  });
  const core = new TemporalCoreMetrics(registry);
  return {
    registry,
    requests: {
      observe({ method, route, status }, seconds) {
        const labels = { method, route, status: String(status) };
        requestsTotal.inc(labels);
        requestDuration.observe(labels, seconds);
      },
    },
    webhooks: {
      attempt: ({ service, eventType, outcome }) =>
        webhookAttempts.inc({ service, event_type: eventType, outcome }),
      finished: ({ service, eventType, status }) =>
        webhookDeliveries.inc({ service, event_type: eventType, status }),
    },
    useCases: {
      observe: ({ service, useCase, outcome }, seconds) =>
        useCaseDuration.observe({ service, use_case: useCase, outcome }, seconds),
    },
    readTemporalBuffer: (buffer) => core.drainFrom(buffer),
    render() {
      core.drain();
      return registry.metrics();
    },
  };
}

/** Core's metric names carry the runtime's prefix; buffered updates may come without it. */
const TEMPORAL_PREFIX = 'temporal_';
const safeName = (name: string) => name.replace(/[^a-zA-Z0-9_:]/g, '_');

/**
 * The Temporal SDK's worker metrics (Core's: task schedule-to-start latencies, slots, pollers, sticky
 * cache, request counts) in this process's registry: the runtime buffers its updates
 * (`telemetryOptions.metrics.buffer`), and they are drained into prom-client metrics before each scrape
 * and every second (the buffer holds 10,000 updates). A metric's labels are those of its first update (an attribute first seen later is
 * dropped); `service_name` is left out (it is always `temporal-core-sdk`).
 */
class TemporalCoreMetrics {
  private readonly metrics = new Map<
    string,
    { labels: string[]; apply: (labels: Record<string, string>, value: number) => void }
  >();
  private buffer: MetricsBuffer | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly registry: Registry) {}

  drainFrom(buffer: MetricsBuffer): void {
    this.buffer = buffer;
    this.timer ??= setInterval(() => this.drain(), 1_000);
    this.timer.unref();
  }

  drain(): void {
    if (!this.buffer) return;
    for (const update of this.buffer.retrieveUpdates()) {
      const { metric, value, attributes } = update;
      const base = safeName(
        metric.name.startsWith(TEMPORAL_PREFIX) ? metric.name : `${TEMPORAL_PREFIX}${metric.name}`,
      );
      const entry = this.metricFor(base, metric.kind, metric.description, metric.unit, attributes);
      entry.apply(this.labelsOf(entry.labels, attributes), value);
    }
  }

  private labelsOf(names: string[], attributes: MetricTags): Record<string, string> {
    const labels: Record<string, string> = {};
    for (const name of names) labels[name] = String(attributes[name] ?? '');
    return labels;
  }

  private metricFor(
    base: string,
    kind: string,
    description: string | undefined,
    unit: string | undefined,
    attributes: MetricTags,
  ) {
    const durations = unit === 'duration' || unit === 's' || unit === 'ms';
    const name = kind === 'histogram' && durations && !base.endsWith('_seconds') ? `${base}_seconds` : base;
    const known = this.metrics.get(name);
    if (known) return known;
    const labels = Object.keys(attributes)
      .filter((key) => key !== 'service_name')
      .map(safeName)
      .sort();
    const help = description || `Temporal SDK metric ${base}`;
    const registers = [this.registry];
    let apply: (labels: Record<string, string>, value: number) => void;
    if (kind === 'counter') {
      // prom-client wants `_total` on counters; Core already ends some names with it (`local_activity_total`).
      const counterName = name.endsWith('_total') ? name : `${name}_total`;
      const counter = new Counter({ name: counterName, help, labelNames: labels, registers });
      apply = (l, v) => counter.inc(l, v);
    } else if (kind === 'histogram') {
      const histogram = new Histogram({
        name,
        help,
        labelNames: labels,
        buckets: durations ? TEMPORAL_BUCKETS_S : [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
        registers,
      });
      // Durations arrive in seconds (the buffer is created with useSecondsForDurations).
      apply = (l, v) => histogram.observe(l, v);
    } else if (kind === 'up_down_counter') {
      const gauge = new Gauge({ name, help, labelNames: labels, registers });
      apply = (l, v) => gauge.inc(l, v);
    } else {
      const gauge = new Gauge({ name, help, labelNames: labels, registers });
      apply = (l, v) => gauge.set(l, v);
    }
    const entry = { labels, apply };
    this.metrics.set(name, entry);
    return entry;
  }
}

/** The port Prometheus exporters of Node.js processes conventionally use. */
export const DEFAULT_METRICS_PORT = 9464;

export interface MetricsListener {
  url: string;
  stop(): Promise<void>;
}

/**
 * Serves `GET /metrics` of this process on METRICS_HOST:METRICS_PORT (decision 0059): a listener of its
 * own, so that the API's port never exposes it and a firewall or the bind address decides who scrapes.
 * `off`: none. The default port when taken (a second process on the host) is a warning, not a failure;
 * a port the operator set must be bound.
 */
export async function serveMetrics(
  config: Pick<Config, 'METRICS_PORT' | 'METRICS_HOST'>,
  logger: Logger,
  options: { metrics?: PlatformMetrics; defaultPort?: number } = {},
): Promise<MetricsListener | undefined> {
  if (config.METRICS_PORT === 'off') return undefined;
  const metrics = options.metrics ?? platformMetrics();
  const port = config.METRICS_PORT ?? options.defaultPort ?? DEFAULT_METRICS_PORT;
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: GET /metrics\n');
      return;
    }
    metrics.render().then(
      (text) => {
        response.writeHead(200, { 'content-type': metrics.registry.contentType });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'metrics could not be collected');
        response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be collected\n');
      },
    );
  });
  try {
    await listen(server, port, config.METRICS_HOST);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (config.METRICS_PORT === undefined && code === 'EADDRINUSE') {
      logger.warn(
        { port, host: config.METRICS_HOST },
        'the default metrics port is taken: this process serves no metrics (set METRICS_PORT for it)',
      );
      return undefined;
    }
    throw new Error(`METRICS_PORT: cannot listen on ${config.METRICS_HOST}:${port} (${code ?? error})`);
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/metrics`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
