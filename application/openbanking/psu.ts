import { canonicalIp } from '../../domain/client-address.ts';
import type { PsuPresence } from '../../domain/openbanking/xs2a.ts';
import { Refusal } from '../shared/refusal.ts';

/**
 * What a request says about the user (PSU) present while a consent, payment or bulk starts: the
 * integrator's `x-psu-ip-address` header, the caller's own address (the socket's peer, or the client
 * named in X-Forwarded-For when that peer is one of TRUSTED_PROXIES) and the browser's User-Agent.
 */
export interface PsuRequest {
  ipHeader: string | undefined;
  callerIp: string | undefined;
  userAgent: string | undefined;
}

/**
 * The user's address and browser, forwarded to the bank as `PSU-IP-Address` and `PSU-User-Agent`: the
 * integrator's header (its backend knows its customer's address; an invalid one is 400), else the
 * caller's address. Never a forwarding header from anyone else.
 */
export function psuOf(request: PsuRequest): PsuPresence | undefined {
  let ipAddress: string | undefined;
  if (request.ipHeader !== undefined) {
    ipAddress = canonicalIp(request.ipHeader);
    if (!ipAddress) throw Refusal.field('x-psu-ip-address', 'must be an IPv4 or IPv6 address');
  } else {
    ipAddress = request.callerIp;
  }
  if (!ipAddress) return undefined;
  return { ipAddress, ...(request.userAgent ? { userAgent: request.userAgent } : {}) };
}

/** Where the bank sends the user's browser back to, with the flow's state (and `?outcome=nok`). */
export function callbackUrlsOf(baseUrl: string, app: string, state: string) {
  const redirectUri = `${baseUrl}/openbanking/redirect/${app}/state/${state}`;
  return { redirectUri, nokRedirectUri: `${redirectUri}?outcome=nok` };
}

/** Where a flow's request came from: the user present, and the public base of the bank's callback. */
export interface FlowOrigin {
  psu: PsuRequest;
  /** PUBLIC_BASE_URL, or where the API listens (api/shared/public-url.ts). */
  baseUrl: string;
}
