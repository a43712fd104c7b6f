import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ConfigError, loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { serveMetrics } from '../../platform/metrics.ts';
import { platformDataConverter } from '../../platform/payload-codec.ts';
import { ensureWorkflowBundle } from '../../platform/workflow-bundle.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * Metrics and traces (decision 0059), on the real stack: the process's `GET /metrics` in Prometheus
 * text format (requests by route template, webhook outcomes, the Temporal SDK's worker metrics), and
 * one SMS traced from its API request through its workflow to the carrier submission, in one trace.
 */

const exporter = new InMemorySpanExporter();
let platform: TestPlatform;
let tracedBundle: string;

beforeAll(async () => {
  tracedBundle = await ensureWorkflowBundle(undefined, undefined, { tracing: true });
  platform = await startTestPlatform({
    env: { METRICS_PORT: '0' },
    tracing: { spanProcessor: new SimpleSpanProcessor(exporter), workflowBundlePath: tracedBundle },
  });
});
afterAll(async () => {
  await platform?.stop();
});

const api = messagingClient(() => platform);

async function scrape() {
  const response = await fetch(platform.metricsUrl!);
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

/** The value of one sample line (`name{labels} value`), 0 when absent. */
function sample(text: string, line: string): number {
  const found = text.split('\n').find((candidate) => candidate.startsWith(`${line} `));
  return found ? Number(found.slice(line.length + 1)) : 0;
}

async function deliveredSms(to: string, extra: Record<string, unknown> = {}) {
  const { status, json } = await api('POST', '/sms', {
    body: { to, from: '+359888000111', message: 'secret code 424242', ...extra },
  });
  expect(status).toBe(202);
  const id = json.id as string;
  await eventually(
    async () => ((await api('GET', `/sms/${id}`)).json.status === 'delivered' ? true : undefined),
    20_000,
    'the message to be delivered',
  );
  return id;
}

/** The workflow that followed the message, as its view names it (its batch, decision 0074). */
async function processOf(id: string): Promise<string> {
  return (await api('GET', `/sms/${id}`)).json.process as string;
}

describe('GET /metrics', () => {
  it('answers in Prometheus text format on its own listener, and counts requests by route template', async () => {
    expect(platform.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const getRoute = 'platform_http_requests_total{method="GET",route="/messaging/sms/:id",status="200"}';
    const before = sample((await scrape()).text, getRoute);
    const id = await deliveredSms('+359888123470');
    const after = await scrape();
    expect(after.status).toBe(200);
    expect(after.type).toContain('text/plain');
    expect(after.text).toContain('# TYPE platform_http_requests_total counter');
    expect(sample(after.text, getRoute)).toBeGreaterThan(before);
    expect(
      sample(after.text, 'platform_http_requests_total{method="POST",route="/messaging/sms",status="202"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(after.text).toMatch(
      /platform_http_request_duration_seconds_bucket\{le="0\.005",method="POST",route="\/messaging\/sms",status="202"\}/,
    );
    // Labels hold templates, never an id, a number or a token.
    expect(after.text).not.toContain(id);
    expect(after.text).not.toContain('359888123470');
    expect(after.text).not.toContain(platform.token);
  });

  it('names a request no operation matches `unmatched`, whatever its path', async () => {
    await fetch(`${platform.apiUrl}/no/such/path/4242`);
    const { text } = await scrape();
    expect(
      sample(text, 'platform_http_requests_total{method="GET",route="unmatched",status="404"}'),
    ).toBeGreaterThan(0);
    expect(text).not.toContain('/no/such/path');
  });

  it('holds the Temporal SDK worker metrics: workflow and activity task schedule-to-start', async () => {
    const { text } = await scrape();
    expect(text).toMatch(/^temporal_workflow_task_schedule_to_start_latency_seconds_bucket\{/m);
    expect(text).toMatch(/^temporal_activity_schedule_to_start_latency_seconds_bucket\{/m);
    expect(text).toContain(`task_queue="${platform.config.TEMPORAL_TASK_QUEUE}"`);
  });

  it('counts webhook outcomes by event type: a report retried once, then delivered', async () => {
    const receiver = await startReceiver((attempt) => ({ status: attempt === 1 ? 503 : 200 }));
    try {
      await deliveredSms('+359888123471', { dlrUrl: receiver.url });
      const text = await eventually(async () => {
        const scraped = (await scrape()).text;
        return /platform_webhook_deliveries_total\{[^}]*status="delivered"\} [1-9]/.test(scraped)
          ? scraped
          : undefined;
      });
      expect(text).toMatch(
        /platform_webhook_attempts_total\{service="messaging",event_type="[^"]+",outcome="retrying"\} 1/,
      );
      expect(text).toMatch(
        /platform_webhook_attempts_total\{service="messaging",event_type="[^"]+",outcome="delivered"\} 1/,
      );
    } finally {
      await receiver.stop();
    }
  });

  it('is configured by METRICS_PORT and METRICS_HOST: loopback by default, `off` for none, a bad value named', () => {
    const defaults = loadConfig({});
    expect(defaults.METRICS_PORT).toBeUndefined();
    expect(defaults.METRICS_HOST).toBe('127.0.0.1');
    expect(loadConfig({ METRICS_PORT: 'off' }).METRICS_PORT).toBe('off');
    expect(loadConfig({ METRICS_PORT: '9500' }).METRICS_PORT).toBe(9500);
    try {
      loadConfig({ METRICS_PORT: 'everywhere' });
      expect.unreachable();
    } catch (error) {
      expect((error as ConfigError).problems.map((problem) => problem.variable)).toEqual(['METRICS_PORT']);
    }
  });

  it('stops on a port the operator set that is taken; runs on without metrics when the default is taken', async () => {
    const taken = Number(new URL(platform.metricsUrl!).port);
    const lines: string[] = [];
    const logger = createLogger('warn', {}, { write: (line: string) => lines.push(line) });
    await expect(serveMetrics({ METRICS_PORT: taken, METRICS_HOST: '127.0.0.1' }, logger)).rejects.toThrow(
      /METRICS_PORT: cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\)/,
    );
    // The default port taken (another process of the host): a warning, and no listener.
    const byDefault = await serveMetrics({ METRICS_PORT: undefined, METRICS_HOST: '127.0.0.1' }, logger, {
      defaultPort: taken,
    });
    expect(byDefault).toBeUndefined();
    expect(lines.join('')).toContain('the default metrics port is taken');
    const probe = await serveMetrics({ METRICS_PORT: 0, METRICS_HOST: '127.0.0.1' }, logger);
    expect(probe?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    await probe?.stop();
    expect(await serveMetrics({ METRICS_PORT: 'off', METRICS_HOST: '127.0.0.1' }, logger)).toBeUndefined();
  });

  it('answers nothing but GET /metrics', async () => {
    const response = await fetch(platform.metricsUrl!.replace('/metrics', '/'));
    expect(response.status).toBe(404);
  });
});

describe('traces', () => {
  it('follow one SMS from its API request through its workflow to the carrier submission, in one trace', async () => {
    const to = '+359888123472';
    exporter.reset(); // this message's spans only (and those of the bank directory's schedule)
    const id = await deliveredSms(to);
    const chain = await eventually(
      async () => {
        const spans = exporter.getFinishedSpans();
        const submit = spans.find(
          (span) => span.name === 'carrier submit' && span.attributes['messaging.system'] === 'smpp',
        );
        if (!submit) return undefined;
        const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
        const path: ReadableSpan[] = [submit];
        for (let span = submit; span.parentSpanId; ) {
          const parent = byId.get(span.parentSpanId);
          if (!parent) return undefined; // not exported yet
          path.push(parent);
          span = parent;
        }
        return path.at(-1)?.name === 'POST /messaging/sms' ? path : undefined;
      },
      20_000,
      'the trace from the request to the carrier',
    );
    const names = chain.map((span) => span.name).reverse();
    expect(names[0]).toBe('POST /messaging/sms');
    expect(names).toContain('StartWorkflow:messageBatch');
    expect(names).toContain('RunWorkflow:messageBatch');
    expect(names.some((name) => name.startsWith('RunActivity:'))).toBe(true);
    expect(names.at(-1)).toBe('carrier submit');
    expect(new Set(chain.map((span) => span.spanContext().traceId)).size).toBe(1);
    expect(chain[0]!.attributes['platform.carrier.outcome']).toBe('submitted');
    expect(chain.at(-1)!.attributes['http.route']).toBe('/messaging/sms');

    // A workflow span names the workflow, not its memo, search attributes or owner.
    const run = chain.find((span) => span.name === 'RunWorkflow:messageBatch')!;
    expect(Object.keys(run.attributes).sort()).toEqual([
      'namespace',
      'runId',
      'taskQueue',
      'workflowId',
      'workflowType',
    ]);
    expect(run.attributes.workflowId).toBe(await processOf(id));
    // No span of the run carries the number, the text, the account or the token.
    const attributes = JSON.stringify(
      exporter.getFinishedSpans().map((span) => [span.name, span.attributes]),
    );
    for (const secret of [to, to.slice(1), 'secret code', '424242', platform.accountId, platform.token])
      expect(attributes).not.toContain(secret);
  });

  it('leave a traced workflow replayable with tracing switched off, and on', async () => {
    const id = await deliveredSms('+359888123473');
    const workflowId = await processOf(id);
    const history = await platform.client.workflow.getHandle(workflowId).fetchHistory();
    const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    expect(Object.keys(started?.header?.fields ?? {})).toContain('_tracer-data');
    for (const bundle of [inject('workflowBundlePath'), tracedBundle])
      await Worker.runReplayHistory(
        { workflowBundle: { codePath: bundle }, dataConverter: platformDataConverter(platform.config) },
        history,
        workflowId,
      );
  });
});
