import ipaddr from 'ipaddr.js';

/**
 * The outbound-URL policy (decision 0027): which destinations a tenant-controlled URL (`dlrUrl`,
 * `callBackUrl`, open-banking hook and redirect URLs, a merchant's `notifyUrl` and `billingUrl`) may
 * point at. Pure rules; the resolution of names and the connect-time check are in
 * platform/outbound-http.ts.
 *
 * Only http(s) to public unicast addresses is allowed. Loopback, private (RFC 1918, RFC 4193),
 * link-local (with the cloud metadata address 169.254.169.254), multicast, unspecified, broadcast,
 * CGNAT (100.64/10) and every other special-purpose range are refused, also when written as an
 * IPv4-mapped, IPv4-translated or NAT64 IPv6 address, unless the operator's allow-list
 * (OUTBOUND_URL_ALLOWLIST) names them: CIDR ranges or single addresses (any port), or `host:port`.
 * Without the variable, sandbox mode allows loopback (its parties run on 127.0.0.1), production nothing.
 */

/** What PLATFORM_MODE=sandbox allows when OUTBOUND_URL_ALLOWLIST is not set: loopback. */
export const SANDBOX_DEFAULT_ALLOWLIST = ['127.0.0.0/8', '::1/128'] as const;

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export interface OutboundUrlPolicy {
  readonly ranges: readonly [Address, number][];
  /** `host:port` entries, host lower-case (an IPv6 host without brackets, normalised). */
  readonly hostPorts: ReadonlySet<string>;
}

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

/** Lower-case; an IP literal without brackets and in its canonical form. */
function normaliseHost(host: string): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return isIpLiteral(bare) ? ipaddr.parse(bare).toString() : bare.toLowerCase();
}

/** A dotted-quad IPv4 or an IPv6 address (the forms a URL's host has after WHATWG parsing). */
function isIpLiteral(host: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(host) || ipaddr.IPv6.isValid(host);
}

/**
 * Validates OUTBOUND_URL_ALLOWLIST: entries separated by commas or spaces, each a CIDR range, an
 * address, or `host:port`; `none` is the empty list. Returns the entries; throws naming a bad one.
 */
export function parseOutboundAllowList(text: string): string[] {
  const entries = text.split(/[\s,]+/).filter((entry) => entry !== '');
  if (entries.length === 1 && entries[0]!.toLowerCase() === 'none') return [];
  for (const entry of entries) {
    if (entry.includes('/')) {
      if (!ipaddr.isValidCIDR(entry) || !isIpLiteral(entry.slice(0, entry.indexOf('/'))))
        throw new Error(`"${entry}" is not a valid CIDR range`);
      continue;
    }
    if (isIpLiteral(entry)) continue;
    const match = HOST_PORT.exec(entry);
    if (!match || Number(match[2]) < 1 || Number(match[2]) > 65535)
      throw new Error(`"${entry}" is neither a CIDR range, an address nor host:port`);
  }
  return entries;
}

/** The policy of a configuration: its allow-list, else the mode's default. */
export function outboundUrlPolicy(config: {
  PLATFORM_MODE: 'sandbox' | 'production';
  OUTBOUND_URL_ALLOWLIST?: readonly string[] | undefined;
}): OutboundUrlPolicy {
  const entries =
    config.OUTBOUND_URL_ALLOWLIST ?? (config.PLATFORM_MODE === 'sandbox' ? SANDBOX_DEFAULT_ALLOWLIST : []);
  const ranges: [Address, number][] = [];
  const hostPorts = new Set<string>();
  for (const entry of entries) {
    if (entry.includes('/')) ranges.push(ipaddr.parseCIDR(entry));
    else if (isIpLiteral(entry)) {
      const address = ipaddr.parse(entry);
      ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else {
      const [, host, port] = HOST_PORT.exec(entry)!;
      hostPorts.add(`${normaliseHost(host!)}:${Number(port)}`);
    }
  }
  return { ranges, hostPorts };
}

/** The IPv4 address an IPv6 address stands for (mapped, translated, NAT64), else the address itself. */
function effectiveAddress(address: Address): Address {
  if (address.kind() !== 'ipv6') return address;
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  const range = v6.range();
  if (range === 'rfc6145' || (range === 'rfc6052' && v6.match(ipaddr.parseCIDR('64:ff9b::/96')))) {
    const bytes = v6.toByteArray().slice(12);
    return ipaddr.fromByteArray(bytes);
  }
  return v6;
}

/**
 * The special-purpose range an address belongs to (`loopback`, `private`, `linkLocal`, `uniqueLocal`,
 * `multicast`, `unspecified`, `carrierGradeNat`, `reserved`, …), or null for a public unicast address.
 * Not an address at all: `invalid`.
 */
export function addressRefusal(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'invalid';
  const range = effectiveAddress(ipaddr.parse(address)).range();
  return range === 'unicast' ? null : range;
}

const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback',
  private: 'a private',
  uniqueLocal: 'a private (unique-local)',
  linkLocal: 'a link-local',
  multicast: 'a multicast',
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
  carrierGradeNat: 'a shared (CGNAT)',
};

function allowListed(policy: OutboundUrlPolicy, address: Address, host: string, port: number): boolean {
  if (policy.hostPorts.has(`${normaliseHost(host)}:${port}`)) return true;
  const candidates = [address, effectiveAddress(address)];
  return policy.ranges.some(([network, bits]) =>
    candidates.some((candidate) => candidate.kind() === network.kind() && candidate.match(network, bits)),
  );
}

/**
 * Connect-time rule: may `address` (one the name `host` resolved to, or the literal itself) be
 * connected to on `port`? Null when it may, else the reason (naming the address: for the operator's
 * log, never for a tenant-readable record).
 */
export function checkOutboundAddress(
  policy: OutboundUrlPolicy,
  target: { host: string; port: number; address: string },
): string | null {
  const refusal = addressRefusal(target.address);
  if (refusal === null) return null;
  if (refusal === 'invalid') return `${target.address} is not an IP address`;
  if (allowListed(policy, ipaddr.parse(target.address), target.host, target.port)) return null;
  return `${target.address} is ${RANGE_WORDS[refusal] ?? 'a special-purpose'} address`;
}

/** The port a URL connects to. */
export function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

export type OutboundUrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * Registration rule (no DNS): an http(s) URL whose host, when it is an IP literal (in any spelling the
 * URL parser accepts: `2130706433`, `0x7f.1`, `[::ffff:7f00:1]`), is allowed. A name passes here and is
 * checked again on every address it resolves to when connecting.
 */
export function checkOutboundUrl(policy: OutboundUrlPolicy, text: string): OutboundUrlCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'must be an http or https URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, reason: 'must be an http or https URL' };
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (host === '') return { ok: false, reason: 'must name a host' };
  if (isIpLiteral(host)) {
    const refusal = checkOutboundAddress(policy, { host, port: portOf(url), address: host });
    if (refusal) return { ok: false, reason: `must not point inside the platform's network: ${refusal}` };
  }
  return { ok: true, url };
}

/** A URL refused at registration; `field` names the request field it came in. */
export class OutboundUrlRefused extends Error {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = 'OutboundUrlRefused';
  }
}

/** Throws OutboundUrlRefused naming `field` when the URL is refused at registration. */
export function assertOutboundUrl(policy: OutboundUrlPolicy, field: string, url: string | null | undefined) {
  if (url === null || url === undefined) return;
  const check = checkOutboundUrl(policy, url);
  if (!check.ok) throw new OutboundUrlRefused(field, check.reason);
}
