import { createHmac } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './generated/collect.ts';
import { type ExtraClientOptions, serviceUrl } from './shared.ts';

export type { components as CollectComponents, paths as CollectPaths };

/** A merchant of the payment-collection gateway: its MIN and the secret its packets are signed with. */
export interface CollectMerchant {
  min: string;
  secret: string;
}

/** A signed packet: the query (or form) fields of every ENCODED operation. */
export interface SignedPacket {
  /** Base64 of the `KEY=VALUE` lines, MIN first. */
  ENCODED: string;
  /** Lowercase hex HMAC-SHA1 of ENCODED keyed with the merchant's secret. */
  CHECKSUM: string;
}

export type CollectClient = Client<paths> & {
  /** Signs `fields` (MIN added first) as the merchant: spread the result into `params.query`. */
  packet(fields: Record<string, string>): SignedPacket;
};

/**
 * The `KEY=VALUE` lines the ENCODED operations answer (`IDN=...`, or `ERR=BAD_CHECKSUM` and `ERRMSG=...`
 * on a refusal) as an object: read those answers with `parseAs: 'text'`.
 */
export function parseLines(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) fields[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return fields;
}

/** Signs a packet of a merchant: `KEY=VALUE` lines (MIN first), base64, HMAC-SHA1 with its secret. */
export function signPacket(merchant: CollectMerchant, fields: Record<string, string>): SignedPacket {
  const text = Object.entries({ MIN: merchant.min, ...fields })
    .map(([key, value]) => `${key}=${value}`)
    .join('\n');
  const ENCODED = Buffer.from(text, 'utf8').toString('base64');
  return { ENCODED, CHECKSUM: createHmac('sha1', merchant.secret).update(ENCODED).digest('hex') };
}

/**
 * A typed client of the payment-collection gateway (`/collect`) for a merchant: its operations are
 * authenticated by the packet's CHECKSUM (HMAC-SHA1 with the merchant's secret), so the credential never
 * travels; `packet(fields)` signs one, e.g.
 * `await collect.GET('/office/reg_bill.cgi', { params: { query: collect.packet({ INVOICE, AMOUNT }) }, parseAs: 'text' })`.
 * The secret stays on the merchant's server: this client is for Node, not for browsers. The cash desk
 * (`/desk/api/...`, a bearer session) and one-touch (`/xdev/...`, APPID and TOKEN in the query) take
 * their own credentials per call.
 */
export function createCollectClient(
  baseUrl: string,
  merchant: CollectMerchant,
  options: ExtraClientOptions = {},
): CollectClient {
  const client = createClient<paths>({ ...options, baseUrl: serviceUrl(baseUrl, '/collect') });
  return Object.assign(client, { packet: (fields: Record<string, string>) => signPacket(merchant, fields) });
}
