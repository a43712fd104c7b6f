import { type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { platformMetrics } from '../../platform/metrics.ts';
import { engineBusyRefusal } from './engine-busy.ts';
import { Refusal } from './refusal.ts';

/**
 * A service's facade (decision 0077): the one list of its use cases that the API, the admin CLI, the
 * demo and tests call. Every use case has one shape, `(deps, input)`: what it may use, and one typed
 * input object (or none). The facade applies once what every use case needs: a tracing span named
 * `<service>.<useCase>` (a refusal is an answer, not an error: its code is an attribute) and the
 * `platform_use_case_duration_seconds` histogram by outcome, and the one mapping of the engine's refusal
 * of an Update it cannot take yet to 503 `process_busy` (application/shared/engine-busy.ts). Idempotency stays with the use cases
 * whose requests carry a key: each binds the key to the row it creates (application/shared/idempotency.ts).
 */

/** Any use case: its dependencies and at most one input object. A third parameter does not type-check. */
// biome-ignore lint/suspicious/noExplicitAny: a constraint over every use case's own types.
type AnyUseCase = (deps: any, input: any) => unknown;

const tracer = trace.getTracer('integration-platform/application');

/** The use cases of a facade, with the arity each was declared with (held by test/platform/house-rules). */
export const declaredArity = Symbol('declaredArity');

export type Facade<T extends Record<string, AnyUseCase>> = T & {
  readonly [declaredArity]: Record<string, number>;
};

/** Wraps each use case of `service` with its span and its duration; the functions keep their types. */
export function facade<T extends Record<string, AnyUseCase>>(service: string, useCases: T): Facade<T> {
  const wrapped: Record<string, AnyUseCase> = {};
  const arity: Record<string, number> = {};
  for (const [name, useCase] of Object.entries(useCases)) {
    arity[name] = useCase.length;
    wrapped[name] = (deps: unknown, input: unknown) =>
      tracer.startActiveSpan(`${service}.${name}`, (span) =>
        observed(service, name, span, () => useCase(deps, input)),
      );
  }
  return Object.assign(wrapped as T, { [declaredArity]: arity });
}

function observed(service: string, useCase: string, span: Span, call: () => unknown): unknown {
  const started = performance.now();
  const end = (outcome: 'ok' | 'refused' | 'failed', error?: unknown) => {
    if (error instanceof Refusal) span.setAttribute('refusal.code', error.code);
    else if (error !== undefined) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
    platformMetrics().useCases.observe({ service, useCase, outcome }, (performance.now() - started) / 1000);
  };
  const fail = (thrown: unknown): never => {
    // The engine's "busy, not yet" is an answer too (503 process_busy with Retry-After), not a failure.
    const error = engineBusyRefusal(thrown) ?? thrown;
    end(error instanceof Refusal ? 'refused' : 'failed', error);
    throw error;
  };
  let result: unknown;
  try {
    result = call();
  } catch (error) {
    return fail(error);
  }
  if (result instanceof Promise) {
    return result.then((value) => {
      end('ok');
      return value;
    }, fail);
  }
  end('ok');
  return result;
}
