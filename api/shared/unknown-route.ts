import type { Context } from 'hono';
import { Refusal } from '../../application/shared/refusal.ts';

/** A route as Hono lists it (`app.routes`): middleware is registered under the method `ALL`. */
interface ListedRoute {
  method: string;
  path: string;
}

/**
 * Turns a Hono route pattern into an anchored expression: `:name` and `:name{regex}` match one
 * segment (close enough to tell whether the path exists; the route itself validates the value), `*`
 * matches the rest.
 */
function patternOf(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      if (segment.startsWith(':')) return '[^/]+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/**
 * The methods the app serves at a path, from its route list; empty when no operation has that path.
 * Built lazily once per app (the list is fixed after mounting).
 */
export function allowedMethods(routes: readonly ListedRoute[]): (path: string) => string[] {
  let compiled: { method: string; pattern: RegExp }[] | undefined;
  return (path) => {
    compiled ??= routes
      .filter((route) => route.method !== 'ALL' && !route.path.endsWith('*'))
      .map((route) => ({ method: route.method, pattern: patternOf(route.path) }));
    const methods = new Set(compiled.filter(({ pattern }) => pattern.test(path)).map(({ method }) => method));
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  };
}

/**
 * What the app answers when no operation serves a request: `405 method_not_allowed` with `Allow` when
 * the path exists under other methods, otherwise `404 route_not_found`, distinct from the `not_found`
 * an operation answers for an unknown resource (a client can tell a wrong URL from a missing loan).
 */
export function answerUnknownRoute(c: Context, methodsAt: (path: string) => string[]): Response {
  const methods = methodsAt(c.req.path);
  // The patterns are looser than the router (a trailing slash, a parameter's own format): where they
  // name the request's own method, the path is not served as written.
  if (methods.length > 0 && !methods.includes(c.req.method)) {
    c.header('Allow', methods.join(', '));
    return c.json(
      new Refusal(
        405,
        'method_not_allowed',
        `${c.req.method} is not served at ${c.req.path}; it answers ${methods.join(', ')}`,
      ).body(),
      405,
    );
  }
  return c.json(
    new Refusal(404, 'route_not_found', `No operation serves ${c.req.method} ${c.req.path}`).body(),
    404,
  );
}
