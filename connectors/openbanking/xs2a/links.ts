/**
 * Where a link a bank gives points, and whether it is the bank's (decision 0082, amending 0061 and
 * 0067). Banks publish their links in several shapes: absolute on another host of theirs
 * (`https://downloads.testbank.com/psd2/v1/…`), relative to their XS2A root (`/v1/consents/…`, the
 * Berlin Group's examples), as a path that repeats that root (`/psd2/v1/…`), or with the host but no
 * scheme (`www.test-api.com/xs2a/v1/…`). A link resolves against the bank's base URL without doubling
 * its path, and is the bank's when it is on the base URL's origin or on a host the bank's directory
 * entry lists (`linkHosts`).
 */

/** The XS2A root the client appends `/v1/…` to: the base URL without trailing slashes nor `/v1`. */
export function xs2aRootOf(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/i, '');
}

/** How a link must name its resource: exactly, or the resource or below it, or strictly below it. */
export type LinkPlace = 'exactly' | 'within' | 'below';

export interface BankLinks {
  /** The link as an absolute http(s) URL, or null when it is none. */
  resolve(href: string): URL | null;
  /** On the bank: the base URL's origin, or a host of its directory entry's `linkHosts`. */
  onBank(url: URL): boolean;
  /**
   * Whether the URL names the resource `under` (`/v1/consents/{id}`, a path below the XS2A root).
   * On the base URL's origin the link keeps the base's path (other banks may share that host); at the
   * host root or on another host of the bank, any root before `/v1/` (`/psd2/v1/…`, `/xs2a/v1/…`).
   */
  names(url: URL, under: string, place: LinkPlace): boolean;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
/** `www.test-api.com/xs2a/v1/…`, `127.0.0.1:4021/v1/…`: a dotted host (and port) before the first `/`. */
const HOST_WITHOUT_SCHEME = /^(?:[a-z0-9-]+\.)+[a-z0-9-]+(?::\d{1,5})?\//i;
/** A path that starts at the XS2A root: `/v1/…`. */
const VERSIONED = /^\/v\d+(?:\/|$)/i;

export function bankLinks(baseUrl: string, linkHosts: readonly string[] = []): BankLinks {
  const root = xs2aRootOf(baseUrl);
  const base = new URL(root);
  const rootPath = base.pathname.replace(/\/+$/, '');
  const hosts = new Set(linkHosts.map((host) => host.toLowerCase()));

  function resolve(href: string): URL | null {
    let url: URL;
    try {
      if (SCHEME.test(href) || href.startsWith('//')) url = new URL(href, base);
      else if (HOST_WITHOUT_SCHEME.test(href)) url = new URL(`${base.protocol}//${href}`);
      else if (href.startsWith('/'))
        // `/v1/…` is below the XS2A root; `/psd2/v1/…` already names its root (no doubled prefix).
        url = new URL(rootPath && VERSIONED.test(href) ? `${rootPath}${href}` : href, base.origin);
      else url = new URL(href, `${root}/`);
    } catch {
      return null;
    }
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
  }

  const onBank = (url: URL) => url.origin === base.origin || hosts.has(url.host);

  function names(url: URL, under: string, place: LinkPlace): boolean {
    const path = url.pathname;
    const at = path.search(/\/v1(?:\/|$)/i);
    if (at < 0) return false;
    if (url.origin === base.origin && rootPath !== '' && path.slice(0, at) !== rootPath) return false;
    const rest = path.slice(at);
    if (place === 'exactly') return rest === under;
    if (place === 'below') return rest.startsWith(`${under}/`);
    return rest === under || rest.startsWith(`${under}/`);
  }

  return { resolve, onBank, names };
}
