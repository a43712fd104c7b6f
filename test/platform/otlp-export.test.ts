import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { startTracing } from '../../platform/tracing.ts';

/** Traces leave the process over OTLP/HTTP only when an endpoint is configured (decision 0059). */
describe('OTLP export', () => {
  it('records nothing without an endpoint: no provider, every span a no-op', () => {
    expect(startTracing({}, 'test')).toBeUndefined();
    expect(trace.getTracer('probe').startSpan('nothing').isRecording()).toBe(false);
  });

  it('sends spans to <OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces when set, flushed on shutdown', async () => {
    const received: { path: string; type: string | undefined; bytes: number }[] = [];
    const collector = createServer((request, response) => {
      let bytes = 0;
      request.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      request.on('end', () => {
        received.push({ path: request.url ?? '', type: request.headers['content-type'], bytes });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const { port } = collector.address() as AddressInfo;
    try {
      const tracing = startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}/` }, 'test');
      expect(tracing).toBeDefined();
      trace.getTracer('probe').startSpan('exported').end();
      await tracing!.shutdown();
      expect(received.length).toBeGreaterThan(0);
      expect(received[0]).toMatchObject({ path: '/v1/traces' });
      expect(received[0]!.bytes).toBeGreaterThan(0);
      // Shut down: spans are no-ops again.
      expect(trace.getTracer('probe').startSpan('after').isRecording()).toBe(false);
    } finally {
      collector.close();
    }
  });
});
