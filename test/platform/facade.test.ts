import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declaredArity, facade } from '../../application/shared/facade.ts';
import { Refusal } from '../../application/shared/refusal.ts';
import { platformMetrics } from '../../platform/metrics.ts';
import { startTracing, type Tracing } from '../../platform/tracing.ts';

/**
 * What a service's facade (decision 0077) adds to every use case: one span named after the service and
 * the use case (a refusal is an answer, recorded as `refusal.code`), one duration by outcome; and nothing
 * it takes away: the answer, the thrown refusal, a synchronous result staying synchronous.
 */

const exporter = new InMemorySpanExporter();
let tracing: Tracing | undefined;
beforeAll(() => {
  tracing = startTracing({}, 'facade-test', { spanProcessor: new SimpleSpanProcessor(exporter) });
});
afterAll(async () => {
  await tracing?.shutdown();
});

interface Deps {
  factor: number;
}
const sample = facade('sample', {
  double: async (deps: Deps, input: { amount: number }) => deps.factor * input.amount,
  refuse: async (_deps: Deps, input: { id: string }): Promise<never> => {
    throw Refusal.notFound(`Thing ${input.id}`);
  },
  fail: (_deps: Deps): never => {
    throw new Error('database gone');
  },
  count: (_deps: Deps, input: { items: string[] }) => input.items.length,
});

const countOf = async (useCase: string, outcome: string) => {
  const text = await platformMetrics().render();
  const line = text
    .split('\n')
    .find((row) =>
      row.startsWith(
        `platform_use_case_duration_seconds_count{service="sample",use_case="${useCase}",outcome="${outcome}"}`,
      ),
    );
  return line ? Number(line.split(' ').at(-1)) : 0;
};

describe('a facade around use cases', () => {
  it('answers what the use case answers, with a span and a duration per call', async () => {
    exporter.reset();
    expect(await sample.double({ factor: 3 }, { amount: 7 })).toBe(21);
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['sample.double']);
    expect(await countOf('double', 'ok')).toBe(1);
  });

  it('lets a refusal through as it was thrown, recorded as an answer, not an error', async () => {
    exporter.reset();
    await expect(sample.refuse({ factor: 1 }, { id: 'x1' })).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
    });
    const [span] = exporter.getFinishedSpans();
    expect(span?.attributes['refusal.code']).toBe('not_found');
    expect(span?.status.code).not.toBe(2); // SpanStatusCode.ERROR
    expect(await countOf('refuse', 'refused')).toBe(1);
  });

  it('records any other failure as the span’s error and rethrows it', () => {
    exporter.reset();
    expect(() => sample.fail({ factor: 1 })).toThrow('database gone');
    const [span] = exporter.getFinishedSpans();
    expect(span?.status.code).toBe(2);
    expect(span?.events.map((event) => event.name)).toContain('exception');
  });

  it('keeps a synchronous use case synchronous', async () => {
    expect(sample.count({ factor: 1 }, { items: ['a', 'b'] })).toBe(2);
    expect(await countOf('count', 'ok')).toBe(1);
  });

  it('keeps each use case’s declared arity for the house rules', () => {
    expect(sample[declaredArity]).toEqual({ double: 2, refuse: 2, fail: 1, count: 2 });
  });
});
