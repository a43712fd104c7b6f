import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { RequestMetrics } from '../../platform/metrics.ts';
import type { AppEnv } from './context.ts';

/**
 * Request metrics and a trace span per request (decision 0059). Both name the operation by its route
 * template (`/messaging/sms/:id`), never the raw path, which may hold ids, numbers or identity hashes;
 * a request no operation matches is `unmatched`, so that scanners cannot grow the label set.
 */

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The template of the operation the request's method and path matched: the last matched route that is
 * not a middleware (`app.use` registers `ALL`), even when a middleware answered first (429, 413).
 */
export function routeTemplate(c: Context): string {
  const routes = matchedRoutes(c);
  for (let index = routes.length - 1; index >= 0; index--) {
    const route = routes[index]!;
    if (route.method !== 'ALL') return route.path;
  }
  return UNMATCHED_ROUTE;
}

const tracer = trace.getTracer('integration-platform-api');

/**
 * A server span per request, active while the request is handled (a workflow started by it continues the
 * trace, @temporalio/interceptors-opentelemetry), and one observation per answer. The span names the
 * method and route template; its attributes are the method, route, status and request id: no path,
 * query, header or body. A trace starts here: a caller's `traceparent` is not continued (a public API
 * does not let its callers choose its trace ids). Without a tracer provider (tracing off) the span is
 * a no-op.
 */
export function observeRequests(metrics: RequestMetrics | undefined): MiddlewareHandler<AppEnv> {
  return (c, next) =>
    tracer.startActiveSpan(c.req.method, { kind: SpanKind.SERVER, root: true }, async (span) => {
      const started = performance.now();
      try {
        await next();
      } finally {
        const method = METHODS.has(c.req.method) ? c.req.method : 'OTHER';
        const route = routeTemplate(c);
        const status = c.res.status;
        span.updateName(route === UNMATCHED_ROUTE ? method : `${method} ${route}`);
        span.setAttributes({
          'http.request.method': method,
          'http.route': route,
          'http.response.status_code': status,
          'platform.request_id': c.get('requestId') ?? '',
        });
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        metrics?.observe({ method, route, status }, (performance.now() - started) / 1000);
      }
    });
}
