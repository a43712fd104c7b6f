import type { ClientOptions } from 'openapi-fetch';

/** What every `createXClient` takes beside the base URL and the credential (openapi-fetch's options). */
export type ExtraClientOptions = Omit<ClientOptions, 'baseUrl'>;

/**
 * The service's base URL: the platform's address (e.g. `http://127.0.0.1:3000`) with the service's base
 * path (the OpenAPI document's `servers`) appended, unless the address already ends with it.
 */
export function serviceUrl(baseUrl: string, basePath: string): string {
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith(basePath) ? trimmed : `${trimmed}${basePath}`;
}

/** The platform's JSON error model (messaging, lending, open banking, the collection desk). */
export interface PlatformError {
  error: { code: string; message: string; fields?: { field: string; message: string }[] };
}
