import ipaddr from 'ipaddr.js';

/**
 * Whose address a request comes from, for what the platform hands on as the customer's address
 * (`PSU-IP-Address` to banks): the socket's peer, unless that peer is one of the operator's
 * TRUSTED_PROXIES, whose `X-Forwarded-For` is then read from the right, skipping trusted proxies, to
 * the first address they did not add themselves (what a client writes first is never believed).
 * Pure (no I/O).
 */

type Address = ipaddr.IPv4 | ipaddr.IPv6;
export type TrustedProxies = readonly [Address, number][];

/** `::ffff:1.2.3.4` as `1.2.3.4`; undefined for anything that is not an IP address. */
function parseAddress(text: string): Address | undefined {
  const bare = text.trim().replace(/^\[(.*)\]$/, '$1');
  if (!ipaddr.IPv4.isValidFourPartDecimal(bare) && !ipaddr.IPv6.isValid(bare)) return undefined;
  return ipaddr.process(bare);
}

/** A valid IP address in its canonical text, else undefined (for headers such as x-psu-ip-address). */
export function canonicalIp(text: string): string | undefined {
  return parseAddress(text)?.toString();
}

/** TRUSTED_PROXIES: addresses and CIDR ranges, comma- or space-separated; throws naming a bad entry. */
export function parseTrustedProxies(text: string): TrustedProxies {
  const ranges: [Address, number][] = [];
  for (const entry of text.split(/[\s,]+/).filter(Boolean)) {
    const [host = '', bits] = entry.split('/');
    const address = parseAddress(host);
    const max = address?.kind() === 'ipv4' ? 32 : 128;
    const prefix = bits === undefined ? max : /^\d{1,3}$/.test(bits) ? Number(bits) : Number.NaN;
    if (!address || !(prefix >= 0 && prefix <= max))
      throw new Error(`"${entry}" is not an IP address or CIDR range (e.g. 10.0.0.0/8, ::1/128)`);
    ranges.push([address, prefix]);
  }
  return ranges;
}

const isTrusted = (address: Address, trusted: TrustedProxies) =>
  trusted.some(([range, bits]) => address.kind() === range.kind() && address.match(range, bits));

export function clientAddress(request: {
  socket: string;
  forwardedFor: string | undefined;
  trusted: TrustedProxies;
}): string {
  const socket = parseAddress(request.socket);
  if (!socket) return request.socket;
  if (!request.forwardedFor || !isTrusted(socket, request.trusted)) return socket.toString();
  let client = socket;
  const hops = request.forwardedFor.split(',').reverse();
  for (const hop of hops) {
    const address = parseAddress(hop);
    if (!address) break;
    client = address;
    if (!isTrusted(address, request.trusted)) break;
  }
  return client.toString();
}
