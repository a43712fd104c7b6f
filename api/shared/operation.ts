import type { OpenAPIHono, RouteConfig, RouteConfigToTypedResponse, RouteHandler } from '@hono/zod-openapi';
import type { Env, MiddlewareHandler } from 'hono';
import type { AppEnv } from './context.ts';

/**
 * The one way to write an API operation, in every service: one file per spec operation holds one
 * `defineOperation({...})` with its route (schemas, descriptions, responses) and its handler, and the
 * service's app mounts it with `mountOperations`. The OpenAPI documents are generated from these
 * definitions, so the reference cannot drift from the code.
 *
 * ```ts
 * export const balance = defineOperation({
 *   versions: [6, 7, 8],                       // API versions (open banking); leave out when unversioned
 *   route: (v) => createRoute({ method: 'get', path: '/balance/{ibanId}', ... }),  // path WITHOUT /api/{v}
 *   handler: (v) => async (c) => c.json(await readBalance(...), 200),
 * });
 * export const registerOfficeBill = defineOperation({
 *   aliases: ['/ezp/reg_bill.cgi'],            // the same operation at other paths (not documented twice)
 *   methods: ['get', 'post'],                  // GET/POST twins (the route's method is the documented one)
 *   route: () => createRoute({ method: 'get', path: '/office/reg_bill.cgi', ... }),
 *   handler: () => async (c) => textAnswer(c, { IDN: idn }),
 * });
 * ```
 *
 * Answers are typed from the route's responses: JSON content (`application/json`) must be answered with
 * `c.json(...)` of its schema and status; text and HTML content (and redirects) are answered with any
 * `Response` (`c.html`, `c.body`, `c.redirect`), so non-JSON operations need no casts.
 *
 * Versions: a versioned operation is mounted at `/api/{v}{path}` for each listed version, with `v` typed
 * to the listed ones (so `v === 9` in an operation of [6, 7, 8] does not compile); `operationId` gets the
 * version appended (`signupV8`) so ids stay unique; a path in an unlisted version answers the app's 404.
 * Unversioned operations give their full path (relative to the service's base path).
 */
export type ApiVersion = number;

/** Versions an operation is mounted in: a non-empty list, or 'none' for an unversioned path. */
export type VersionList = readonly [ApiVersion, ...ApiVersion[]] | 'none';
export type VersionOf<V extends VersionList> = V extends readonly ApiVersion[] ? V[number] : 'none';

type HttpMethod = 'get' | 'post' | 'put' | 'delete' | 'patch';

/** Whether the route declares any answer that is not JSON (text, HTML), or a status without content. */
type HasNonJsonAnswer<R extends RouteConfig> = {
  [S in keyof R['responses']]: R['responses'][S] extends { content: infer C }
    ? Exclude<keyof C, `application/${string}json${string}`> extends never
      ? false
      : true
    : true;
}[keyof R['responses']];

/** What a handler may answer: the typed JSON answers of the route, and a plain Response for the others. */
export type OperationAnswer<R extends RouteConfig> =
  | RouteConfigToTypedResponse<R>
  | (true extends HasNonJsonAnswer<R> ? Response : never);

/** The handler of one mount: the validated-input context of the route, answering OperationAnswer<R>. */
export type OperationHandler<R extends RouteConfig, E extends Env = AppEnv> = (
  c: Parameters<RouteHandler<R, E>>[0],
  next: Parameters<RouteHandler<R, E>>[1],
) => OperationAnswer<R> | Promise<OperationAnswer<R>>;

export interface OperationDefinition<V extends VersionList, R extends RouteConfig, E extends Env> {
  /** API versions it is mounted in (`/api/{v}` + path); 'none' or left out: unversioned. */
  versions?: V;
  /** Other full paths that serve the same operation (served, validated, not documented again unless `documentAliases`). */
  aliases?: readonly string[];
  /** The aliases are in the OpenAPI document too, each as its own path (a spec that lists them). */
  documentAliases?: boolean;
  /** Methods it answers; the route's own method is the documented one. Default: the route's method. */
  methods?: readonly HttpMethod[];
  /** The route of one version; its `path` is relative to `/api/{v}` (or the full path when unversioned). */
  route: (v: VersionOf<V>) => R;
  handler: (v: VersionOf<V>) => OperationHandler<R, E>;
}

export interface MountedRoute<N extends ApiVersion = ApiVersion> {
  version: N | 'none';
  method: string;
  /** OpenAPI form of the full path below the service's base path, e.g. `/api/8/balance/{ibanId}`. */
  path: string;
  /** Whether this mount is in the OpenAPI document (method twins are not; aliases only with documentAliases). */
  documented: boolean;
}

/** How a service mounts its operations: the credential check a route's `security` asks for. */
export interface MountOptions<E extends Env> {
  /** Middleware checking the credentials a route's `security` names (before the input is validated). */
  credentialGate?: (security: NonNullable<RouteConfig['security']>) => MiddlewareHandler<E>;
}

/** An operation ready to mount; produced by defineOperation (keeps the route/handler types paired). */
export interface Operation<E extends Env = AppEnv, N extends ApiVersion = ApiVersion> {
  /** The versions it is mounted in, as defined (tests derive the version matrix from this). */
  readonly versions: readonly N[] | 'none';
  /** Method and path of every mount: each version, alias and method twin. */
  readonly mounts: readonly MountedRoute<N>[];
  mount(app: OpenAPIHono<E>, options?: MountOptions<E>): void;
}

export function versionedPath(version: ApiVersion | 'none', path: string): string {
  return version === 'none' ? path : `/api/${version}${path}`;
}

/** Hono's `:name` form of an OpenAPI `{name}` path, for comparing mounts with Hono routes. */
export const honoPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

export function defineOperation<
  const V extends VersionList = 'none',
  R extends RouteConfig = RouteConfig,
  E extends Env = AppEnv,
>(definition: OperationDefinition<V, R, E>): Operation<E, Exclude<VersionOf<V>, 'none'>> {
  type N = Exclude<VersionOf<V>, 'none'>;
  const declared = (definition.versions ?? 'none') as readonly N[] | 'none';
  const versions = (declared === 'none' ? ['none'] : declared) as unknown as readonly VersionOf<V>[];
  const mountsOf = (v: VersionOf<V>) => {
    const route = definition.route(v);
    const methods = definition.methods ?? [route.method];
    const paths = [versionedPath(v, route.path), ...(definition.aliases ?? [])];
    return paths.flatMap((path, pathIndex) =>
      methods.map((method) => ({
        route,
        pathIndex,
        mounted: {
          version: v as N | 'none',
          method: method.toUpperCase(),
          path,
          documented: (pathIndex === 0 || definition.documentAliases === true) && method === route.method,
        },
      })),
    );
  };
  return {
    versions: declared,
    mounts: versions.flatMap((v) => mountsOf(v).map(({ mounted }) => mounted)),
    mount(app, options = {}) {
      for (const v of versions) {
        const handler = definition.handler(v);
        for (const { route, pathIndex, mounted } of mountsOf(v)) {
          const served = {
            ...route,
            method: mounted.method.toLowerCase() as R['method'],
            path: mounted.path,
            // Credentials are checked before the request is validated (401 before 400).
            middleware: [
              ...(route.security && options.credentialGate ? [options.credentialGate(route.security)] : []),
              ...(route.middleware ? [route.middleware].flat() : []),
            ],
            // A documented alias needs an operationId of its own.
            ...(route.operationId && (v !== 'none' || pathIndex > 0)
              ? {
                  operationId: `${route.operationId}${v !== 'none' ? `V${v}` : ''}${pathIndex > 0 ? `Alias${pathIndex}` : ''}`,
                }
              : {}),
            ...(mounted.documented ? {} : { hide: true }),
          } as R;
          // The mounted path differs from the relative one in the type only; the handler reads its
          // parameters by name, which every mount of the operation shares.
          app.openapi(served, handler as unknown as RouteHandler<R, E>);
        }
      }
    },
  };
}

/** Registers every operation in each of its mounts. */
export function mountOperations<E extends Env>(
  app: OpenAPIHono<E>,
  operations: readonly Operation<E>[],
  options: MountOptions<E> = {},
): void {
  for (const operation of operations) operation.mount(app, options);
}
