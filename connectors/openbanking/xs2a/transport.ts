import { randomUUID } from 'node:crypto';
import type { RequestSigner } from '../../../credentials/openbanking/tpp-signing.ts';
import {
  type PaymentProduct,
  type PsuPresence,
  type Xs2aErrorDetails,
  Xs2aErrorType,
} from '../../../domain/openbanking/xs2a.ts';
import { outboundUrlPolicy } from '../../../domain/outbound-url.ts';
import { classifyFetchError, createOutboundFetch } from '../../../platform/outbound-http.ts';
import { isObject } from './answers.ts';
import { errorOf, failure, protocolError } from './errors.ts';
import { bankLinks, type LinkPlace, xs2aRootOf } from './links.ts';

/**
 * How the XS2A client's requests reach one bank: the base URL, a fresh X-Request-ID, the timeout, the
 * TPP's signature, the consent's bearer token (renewed once on TOKEN_EXPIRED), errors mapped to the
 * connector's failures; and the checks that keep a link the bank gives on that bank (links.ts). A
 * request to a host other than the base URL's goes through the outbound-URL policy (`linkFetch`).
 */

export interface Xs2aClientOptions {
  /**
   * The bank's XS2A base URL; paths `/v1/...` are appended (e.g. http://127.0.0.1:4020/bank-a). A
   * base that ends in `/v1` (`https://api.bank.example/psd2/v1`) is taken without it.
   */
  baseUrl: string;
  /** Other hosts whose links are the bank's own (its directory entry's `linkHosts`, decision 0082). */
  linkHosts?: readonly string[];
  /**
   * The fetch for every host other than the base URL's (the bank's other hosts, its OAuth2
   * authorisation server): under the outbound-URL policy (platform/outbound-http.ts). Default: the
   * policy of production, which refuses loopback and private addresses.
   */
  linkFetch?: typeof fetch;
  /** Per HTTP request (OPENBANKING_BANK_REQUEST_TIMEOUT). */
  requestTimeoutMs: number;
  fetch?: typeof fetch;
  /** Guard for listTransactions following `_links.next` (default 1,000 pages). */
  maxPages?: number;
  /**
   * The TPP's identity on every request (Berlin Group signing: Digest, Signature,
   * TPP-Signature-Certificate): given the request, answers the headers to add.
   */
  signer?: RequestSigner;
  /**
   * OAuth2 as SCA approach (decision 0067): the consent's access token at the bank, sent as
   * `Authorization: Bearer` with the account-information reads.
   */
  accessToken?: string;
  /**
   * OAuth2 SCA: a new access token when the bank answers a read 401 `TOKEN_EXPIRED` (the read is sent
   * again once with it); absent, that answer is Xs2aConsentInvalid.
   */
  renewAccessToken?: () => Promise<string>;
  /** Our client_id at the banks' authorisation servers (OPENBANKING_TPP_CLIENT_ID). */
  oauthClientId?: string;
}

/** The PSU-IP-Address (and PSU-User-Agent) that say the PSU is at the keyboard; none without the PSU. */
export const psuHeaders = (psu?: PsuPresence): Record<string, string> =>
  psu
    ? { 'PSU-IP-Address': psu.ipAddress, ...(psu.userAgent ? { 'PSU-User-Agent': psu.userAgent } : {}) }
    : {};

export const accountPath = (accountId: string) => `/v1/accounts/${encodeURIComponent(accountId)}`;

export const paymentPath = (product: PaymentProduct, paymentId?: string) =>
  `/v1/payments/${encodeURIComponent(product)}${paymentId ? `/${encodeURIComponent(paymentId)}` : ''}`;

/** What every part of the client (consents, accounts, payments, …) sends its requests through. */
export interface Xs2aTransport {
  readonly options: Xs2aClientOptions;
  /** The base URL without its trailing slash (nor `/v1`). */
  readonly baseUrl: string;
  readonly base: URL;
  /** The fetch for a URL: the given one on the base URL's origin, else the outbound-policy one. */
  fetchFor(url: string): typeof fetch;
  call(
    what: string,
    method: string,
    url: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<Record<string, unknown> | null>;
  exchange(
    what: string,
    method: string,
    url: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<{ body: Record<string, unknown> | null; headers: Headers }>;
  /** The absolute URL of a path below the base URL, with the query's defined values. */
  url(path: string, query?: Record<string, string | undefined>): string;
  /** The headers of an account-information read: Consent-ID, the bearer token (OAuth2 SCA), the PSU's. */
  consentHeaders(consentId: string, psu?: PsuPresence): Record<string, string>;
  /** A link of the bank, absolute (relative ones resolved against the base URL, links.ts). */
  absolute(href: string | undefined): string | null;
  /**
   * A link of the bank's OAuth2 authorisation server the TPP itself calls (the scaOAuth link, the
   * token endpoint): an http(s) URL on any host the bank announced (`against`: the document it came in).
   */
  oauthLink(what: string, href: string, against?: string): string;
  resourceLink(what: string, href: string, under: string): string;
  /** A link the bank gives for `under` on the bank (links.ts), else null. */
  bankLink(href: string, under: string, place: LinkPlace): string | null;
}

export function createXs2aTransport(options: Xs2aClientOptions): Xs2aTransport {
  const baseUrl = xs2aRootOf(options.baseUrl);
  const base = new URL(baseUrl);
  const doFetch = options.fetch ?? fetch;
  const links = bankLinks(baseUrl, options.linkHosts);
  let linkFetch = options.linkFetch;
  const fetchFor = (target: string): typeof fetch => {
    if (new URL(target).origin === base.origin) return doFetch;
    linkFetch ??= createOutboundFetch(outboundUrlPolicy({ PLATFORM_MODE: 'production' }));
    return linkFetch;
  };
  /** OAuth2 SCA: the consent's current access token (renewed on TOKEN_EXPIRED). */
  let accessToken = options.accessToken;

  /** One XS2A call: a fresh X-Request-ID, the timeout, errors mapped; the parsed JSON body (or null for 204). */
  async function call(
    what: string,
    method: string,
    url: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<Record<string, unknown> | null> {
    return (await exchange(what, method, url, headers, body)).body;
  }

  /** As call(), with the answer's headers. */
  async function exchange(
    what: string,
    method: string,
    url: string,
    headers: Record<string, string>,
    body?: unknown,
    renewed = false,
  ): Promise<{ body: Record<string, unknown> | null; headers: Headers }> {
    let response: Response;
    const payload = body !== undefined ? JSON.stringify(body) : undefined;
    const requestHeaders: Record<string, string> = {
      accept: 'application/json',
      'X-Request-ID': randomUUID(),
      ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    };
    try {
      response = await fetchFor(url)(url, {
        method,
        headers: {
          ...requestHeaders,
          ...(options.signer?.({ method, url, headers: requestHeaders, body: payload }) ?? {}),
        },
        ...(payload !== undefined ? { body: payload } : {}),
        signal: AbortSignal.timeout(options.requestTimeoutMs),
        redirect: 'manual',
      });
    } catch (error) {
      if (classifyFetchError(error) === 'refused_by_policy')
        throw protocolError(what, `${new URL(url).host} is refused by the outbound-URL policy`);
      const timedOut = (error as Error).name === 'TimeoutError';
      const problem = timedOut ? `no answer within ${options.requestTimeoutMs} ms` : (error as Error).message;
      throw failure(Xs2aErrorType.BankUnavailable, `${what}: ${problem}`, {
        status: null,
        code: null,
        text: problem,
        retryAfterSeconds: null,
      });
    }
    if (!response.ok) {
      const refused = await errorOf(response, what);
      // OAuth2 SCA: the bank ended the access token before we expected; renewed, the read goes again once.
      const code = (refused.details?.[0] as Xs2aErrorDetails | undefined)?.code;
      if (code === 'TOKEN_EXPIRED' && headers.Authorization && options.renewAccessToken && !renewed) {
        accessToken = await options.renewAccessToken();
        return exchange(
          what,
          method,
          url,
          { ...headers, Authorization: `Bearer ${accessToken}` },
          body,
          true,
        );
      }
      throw refused;
    }
    if (response.status === 204) return { body: null, headers: response.headers };
    const parsed: unknown = await response.json().catch(() => undefined);
    if (!isObject(parsed)) throw protocolError(what, `the ${response.status} answer is not a JSON object`);
    return { body: parsed, headers: response.headers };
  }

  const url = (path: string, query?: Record<string, string | undefined>) => {
    const target = new URL(`${baseUrl}${path}`);
    for (const [name, value] of Object.entries(query ?? {}))
      if (value !== undefined) target.searchParams.set(name, value);
    return target.toString();
  };
  const consentHeaders = (consentId: string, psu?: PsuPresence) => ({
    'Consent-ID': consentId,
    ...(accessToken ? { Authorization: `Bearer ${accessToken}` } : {}),
    ...psuHeaders(psu),
  });

  function oauthLink(what: string, href: string, against?: string): string {
    let target: URL;
    try {
      target = against ? new URL(href, against) : (links.resolve(href) ?? new URL(href));
    } catch {
      throw protocolError(what, `the link ${href} is not a URL`);
    }
    if (target.protocol !== 'https:' && target.protocol !== 'http:')
      throw protocolError(what, `the link ${href} is not an http(s) URL`);
    return target.toString();
  }

  const absolute = (href: string | undefined) => (href ? (links.resolve(href)?.toString() ?? null) : null);

  function bankLink(href: string, under: string, place: LinkPlace): string | null {
    const target = links.resolve(href);
    return target && links.onBank(target) && links.names(target, under, place) ? target.toString() : null;
  }

  /**
   * A link the bank gives to go on with a resource (`_links.startAuthorisation`, …): followed as given
   * (never rebuilt), but only on the bank (its origin, or a host its directory entry lists) and below
   * the resource it belongs to (`under`, a path below the XS2A root), so a bank's answer cannot send
   * the TPP's requests elsewhere.
   */
  function resourceLink(what: string, href: string, under: string): string {
    const target = bankLink(href, under, 'within');
    if (target === null) throw protocolError(what, `the link ${href} leaves the resource ${under}`);
    return target;
  }

  return {
    options,
    baseUrl,
    base,
    fetchFor,
    call,
    exchange,
    url,
    consentHeaders,
    absolute,
    oauthLink,
    resourceLink,
    bankLink,
  };
}
