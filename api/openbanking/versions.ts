import type { OpenAPIHono, RouteConfig, RouteHandler } from '@hono/zod-openapi';
import type { AppEnv } from '../shared/context.ts';
import { credentialGate } from './identity.ts';

/**
 * API versions of the open-banking gateway, served side by side as `/openbanking/api/{6,7,8,9}/...`.
 *
 * One implementation per operation, mounted in every version the spec's Versions column lists:
 *
 * ```ts
 * export const balance = defineOperation({
 *   versions: [6, 7, 8],
 *   route: (v) => createRoute({ method: 'get', path: '/balance/{ibanId}', ... }),   // path WITHOUT /api/{v}
 *   handler: (v) => async (c) => c.json(await readBalance(c.get('deps'), ...), 200),
 * });
 * // api/openbanking/index.ts: mountOperations(app, [balance, ...])
 * ```
 *
 * `mountOperations` registers `/api/${v}${path}` for each listed version, so the OpenAPI document lists
 * each version's operations and a path in an unlisted version answers 404 with the JSON error body (the
 * app's notFound). Version differences are written in `route(v)` / `handler(v)`, e.g.
 * `query: v === 6 ? base : base.extend({ country })`. The type of `v` is narrowed to the listed
 * versions, so `v === 9` in an operation of [6, 7, 8] does not compile.
 *
 * Paths outside the versioned tree (the spec's Versions "none": `/api/cgate/...`, `/redirect/{app}/state/{state}`)
 * use `versions: 'none'` and give the full path; `v` is then `'none'`.
 *
 * `operationId` (when the route sets one) gets the version appended (`signupV8`) so ids stay unique.
 */
export const API_VERSIONS = [6, 7, 8, 9] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

/** Versions an operation is mounted in: a non-empty list, or 'none' for an unversioned path. */
export type VersionList = readonly [ApiVersion, ...ApiVersion[]] | 'none';
export type VersionOf<V extends VersionList> = V extends readonly ApiVersion[] ? V[number] : 'none';

export interface OperationDefinition<V extends VersionList, R extends RouteConfig> {
  versions: V;
  /** The route of one version; its `path` is relative to `/api/{v}` (or the full path for 'none'). */
  route: (v: VersionOf<V>) => R;
  handler: (v: VersionOf<V>) => RouteHandler<R, AppEnv>;
}

/** An operation ready to mount; produced by defineOperation (keeps the route/handler types paired). */
export interface Operation {
  /** The versions it is mounted in, as defined (tests derive the version matrix from this). */
  readonly versions: VersionList;
  /** Method and path as mounted in each version (`/api/8/signup`), or once for 'none'. */
  readonly mounts: readonly MountedRoute[];
  mount(app: OpenAPIHono<AppEnv>): void;
}

export interface MountedRoute {
  version: ApiVersion | 'none';
  method: string;
  /** OpenAPI form of the full path below /openbanking, e.g. `/api/8/balance/{ibanId}`. */
  path: string;
}

export function versionedPath(version: ApiVersion | 'none', path: string): string {
  return version === 'none' ? path : `/api/${version}${path}`;
}

export function defineOperation<const V extends VersionList, R extends RouteConfig>(
  definition: OperationDefinition<V, R>,
): Operation {
  const versions = (definition.versions === 'none'
    ? ['none']
    : definition.versions) as unknown as readonly VersionOf<V>[];
  const mounts = versions.map((v) => {
    const route = definition.route(v);
    return {
      version: v as ApiVersion | 'none',
      method: route.method.toUpperCase(),
      path: versionedPath(v, route.path),
    };
  });
  return {
    versions: definition.versions,
    mounts,
    mount(app) {
      for (const v of versions) {
        const route = definition.route(v);
        const mounted = {
          ...route,
          // Credentials are checked before the request is validated (401 before 400).
          middleware: [
            ...(route.security ? [credentialGate(route.security)] : []),
            ...(route.middleware ? [route.middleware].flat() : []),
          ],
          path: versionedPath(v, route.path),
          ...(route.operationId && v !== 'none' ? { operationId: `${route.operationId}V${v}` } : {}),
        } as R;
        // The path changed from the relative to the mounted form, which the handler does not depend on.
        app.openapi(mounted, definition.handler(v) as never);
      }
    },
  };
}

/** Registers every operation in each of its versions. */
export function mountOperations(app: OpenAPIHono<AppEnv>, operations: readonly Operation[]): void {
  for (const operation of operations) operation.mount(app);
}

/**
 * The OpenAPI document of one version: the paths of that version (and the unversioned ones), taken from
 * the document of all versions.
 */
export function documentOfVersion<D extends { paths?: Record<string, unknown> }>(
  document: D,
  version: ApiVersion,
): D {
  const paths = Object.fromEntries(
    Object.entries(document.paths ?? {}).filter(
      ([path]) => path.startsWith(`/api/${version}/`) || !/^\/api\/\d+\//.test(path),
    ),
  );
  return { ...document, paths };
}
