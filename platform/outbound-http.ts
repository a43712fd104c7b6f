import dns from 'node:dns';
import net from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import {
  checkOutboundAddress,
  checkOutboundUrl,
  type OutboundUrlPolicy,
  outboundUrlPolicy,
} from '../domain/outbound-url.ts';
import type { Config } from './config.ts';

/**
 * Outbound HTTP to tenant-controlled URLs (webhooks, merchant notifications, billing callbacks) under
 * the outbound-URL policy (domain/outbound-url.ts, decision 0027): the URL is checked before the call,
 * the host is resolved once, every address it resolves to is checked, and the socket connects to the
 * checked addresses (a `lookup` hook of the connection), so a name cannot be rebound between the check
 * and the connection.
 */

/** Every address a name resolves to (the connect-time check sees all of them). */
export type ResolveAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolve: ResolveAll = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

/** The destination is refused by the policy; the message (with the address) is for the operator's log. */
export class OutboundRefusedError extends Error {
  readonly code = 'ERR_OUTBOUND_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

/** A `lookup` for net/tls.connect that answers only with addresses the policy allows for host:port. */
function policyLookup(policy: OutboundUrlPolicy, port: number, resolve: ResolveAll): net.LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (resolved) => {
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
        const addresses = resolved.filter((entry) => !family || entry.family === family);
        for (const { address } of resolved) {
          const refusal = checkOutboundAddress(policy, { host: hostname, port, address });
          if (refusal) return callback(new OutboundRefusedError(`${hostname}: ${refusal}`), '', 0);
        }
        if (addresses.length === 0) {
          const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
          return callback(error, '', 0);
        }
        if (options.all) return callback(null, addresses);
        return callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/**
 * A `fetch` for tenant-controlled URLs under `policy`. `resolve` replaces the system resolver (tests).
 * Refusals reject like network errors, with an OutboundRefusedError as the cause.
 */
export function createOutboundFetch(
  policy: OutboundUrlPolicy,
  options: { resolve?: ResolveAll } = {},
): typeof fetch {
  const resolve = options.resolve ?? systemResolve;
  const agent = new Agent({
    connect: (target, callback) => {
      const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
      if (net.isIP(target.hostname)) {
        // net.connect does not look up an IP literal: check it here.
        const refusal = checkOutboundAddress(policy, {
          host: target.hostname,
          port,
          address: target.hostname,
        });
        if (refusal) {
          callback(new OutboundRefusedError(refusal), null);
          return undefined as never;
        }
      }
      return buildConnector({ lookup: policyLookup(policy, port, resolve) })(target, callback);
    },
  });
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const check = checkOutboundUrl(policy, url);
    if (!check.ok) throw new TypeError('fetch failed', { cause: new OutboundRefusedError(check.reason) });
    return undiciFetch(url, { ...(init as object), dispatcher: agent } as Parameters<typeof undiciFetch>[1]);
  }) as unknown as typeof fetch;
}

/** The policy fetch of a configuration (its allow-list, else the mode's default). */
export function outboundFetchFor(config: Pick<Config, 'PLATFORM_MODE' | 'OUTBOUND_URL_ALLOWLIST'>) {
  return createOutboundFetch(outboundUrlPolicy(config));
}

/**
 * What an attempt record says about a call that got no HTTP answer: a coarse outcome that tells an
 * integrator what to fix without mapping the inside of the network (no socket code, address or port).
 */
export type OutboundFailure =
  | 'timeout'
  | 'connection_failed'
  | 'host_not_found'
  | 'tls_error'
  | 'refused_by_policy';

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_NONAME', 'EAI_FAIL']);
const TLS_CODE =
  /^(ERR_TLS_|ERR_SSL_|EPROTO$|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_)/;

/** The socket-level cause of a failed fetch (undici wraps it in a TypeError `fetch failed`). */
function causeOf(error: unknown): { code?: string; message?: string; name?: string } | undefined {
  if (!(error instanceof Error)) return undefined;
  const cause = error.cause as
    | { code?: string; message?: string; name?: string; cause?: unknown }
    | undefined;
  return cause ?? undefined;
}

export function classifyFetchError(error: unknown): OutboundFailure {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return 'timeout';
  if (error instanceof OutboundRefusedError) return 'refused_by_policy';
  const cause = causeOf(error);
  if (cause instanceof OutboundRefusedError) return 'refused_by_policy';
  const code = cause?.code ?? '';
  if (cause?.name === 'TimeoutError' || TIMEOUT_CODES.has(code)) return 'timeout';
  if (DNS_CODES.has(code)) return 'host_not_found';
  if (TLS_CODE.test(code)) return 'tls_error';
  return 'connection_failed';
}

/**
 * The `error` text of an attempt record (webhooks, merchant notifications, billing callbacks) for a call
 * without an HTTP answer: the coarse outcome only, in every mode (a socket code or an address would map
 * the inside of the network for whoever reads the record).
 */
export const describeFetchError = (error: unknown): OutboundFailure => classifyFetchError(error);

const REFUSED_BY_POLICY: OutboundFailure = 'refused_by_policy';

/**
 * Whether an attempt's `error` (describeFetchError, as recorded) says the outbound-URL policy refused
 * the destination: no later attempt can succeed, so every delivery the platform makes (webhooks,
 * merchant notifications, billing callbacks) ends at once instead of being retried along its schedule
 * (issue 20, decision 0027).
 */
export const refusedByPolicy = (error: string | null | undefined): boolean => error === REFUSED_BY_POLICY;
