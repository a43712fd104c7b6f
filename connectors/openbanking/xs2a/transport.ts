import { randomUUID } from 'node:crypto';
import type { RequestSigner } from '../../../credentials/openbanking/tpp-signing.ts';
import {
  type PaymentProduct,
  type PsuPresence,
  type Xs2aErrorDetails,
  Xs2aErrorType,
} from '../../../domain/openbanking/xs2a.ts';
import { isObject } from './answers.ts';
import { errorOf, failure, protocolError } from './errors.ts';

/**
 * How the XS2A client's requests reach one bank: the base URL, a fresh X-Request-ID, the timeout, the
 * TPP's signature, the consent's bearer token (renewed once on TOKEN_EXPIRED), errors mapped to the
 * connector's failures; and the checks that keep a link the bank gives on that bank.
 */

export interface Xs2aClientOptions {
  /** The bank's XS2A base URL; paths `/v1/...` are appended (e.g. http://127.0.0.1:4020/bank-a). */
  baseUrl: string;
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
  /** The base URL without its trailing slash. */
  readonly baseUrl: string;
  readonly base: URL;
  readonly fetch: typeof fetch;
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
  /** A link of the bank, absolute (relative ones resolved on the bank's origin). */
  absolute(href: string | undefined): string | null;
  onBankOrigin(what: string, href: string): string;
  resourceLink(what: string, href: string, under: string): string;
}

export function createXs2aTransport(options: Xs2aClientOptions): Xs2aTransport {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const base = new URL(baseUrl);
  const doFetch = options.fetch ?? fetch;
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
      response = await doFetch(url, {
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

  /** A link of the bank's OAuth2 authorisation server the TPP itself calls: on the bank's origin only. */
  function onBankOrigin(what: string, href: string): string {
    let target: URL;
    try {
      target = new URL(href, `${base.origin}/`);
    } catch {
      throw protocolError(what, `the link ${href} is not a URL`);
    }
    if (target.origin !== base.origin) throw protocolError(what, `the link ${href} leaves the bank`);
    return target.toString();
  }

  const absolute = (href: string | undefined) => (href ? new URL(href, `${base.origin}/`).toString() : null);

  /**
   * A link the bank gives to go on with a resource (`_links.startAuthorisation`, …): followed as given
   * (never rebuilt), but only on this bank and below the resource it belongs to (`under`, a path
   * relative to the base URL), so a bank's answer cannot send the TPP's requests elsewhere.
   */
  function resourceLink(what: string, href: string, under: string): string {
    const refuse = (text: string) => protocolError(what, text);
    let target: URL;
    try {
      target = new URL(href, `${base.origin}/`);
    } catch {
      throw refuse(`the link ${href} is not a URL`);
    }
    const prefix = `${base.pathname.replace(/\/+$/, '')}${under}`;
    if (
      target.origin !== base.origin ||
      !(target.pathname === prefix || target.pathname.startsWith(`${prefix}/`))
    )
      throw refuse(`the link ${href} leaves the resource ${under}`);
    return target.toString();
  }

  return {
    options,
    baseUrl,
    base,
    fetch: doFetch,
    call,
    exchange,
    url,
    consentHeaders,
    absolute,
    onBankOrigin,
    resourceLink,
  };
}
