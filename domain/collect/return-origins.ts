/**
 * The return origins a merchant registers (decision 0013): the card page honours URL_OK / URL_CANCEL
 * posted as form fields, outside the signed packet, only when they point under one of them. Pure.
 */

/** An origin as registered: `https://shop.example` or `https://shop.example:8443`, nothing more. */
export function normaliseReturnOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${value} is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`${value}: must be http(s)`);
  if (
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    (url.pathname !== '/' && url.pathname !== '')
  ) {
    throw new Error(`${value}: an origin is scheme, host and port only (no path, query or credentials)`);
  }
  return url.origin;
}

/** Whether `value` (an absolute http(s) URL) lies under one of the registered origins. */
export function isUnderReturnOrigins(value: string, origins: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  // No userinfo: `https://shop.example@evil.example` is evil.example's, and a URL with credentials is none of ours.
  if (url.username || url.password) return false;
  return origins.includes(url.origin);
}
