/**
 * API versions of the open-banking gateway, served side by side as `/openbanking/api/{6,7,8,9}/...`.
 * Each operation is defined once (api/shared/operation.ts) and lists the versions the spec's Versions
 * column gives it; paths outside the versioned tree (the spec's Versions "none": `/api/cgate/...`,
 * `/redirect/{app}/state/{state}`) leave `versions` out and give the full path.
 */
export const API_VERSIONS = [6, 7, 8, 9] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

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
