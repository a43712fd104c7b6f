import { badField, CollectProtocolError } from './errors.ts';

/**
 * The ENCODED packet: base64 of `KEY=VALUE` lines. Pure (no I/O), safe in workflow code.
 *
 * Decoding follows what merchants' existing ePay clients send:
 * - line breaks inside the base64 text (Ruby's `Base64.encode64`, MIME wrapping) are ignored;
 * - spaces are read as `+` (a `+` sent unescaped in a query string arrives as a space);
 * - the text is UTF-8 when the packet has `ENCODING=utf-8`, else windows-1251 (ePay's default);
 * - lines end with `\n` or `\r\n`; empty lines are skipped; keys are case-insensitive (upper-cased);
 * - unknown keys are kept (and ignored by the schemas); a key given twice is refused.
 */
export type Packet = Readonly<Record<string, string>>;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const KEY = /^[A-Za-z][A-Za-z0-9_]*$/;

/** ENCODED as the checksum and the decoder see it: spaces restored to `+`. */
export function normaliseEncoded(encoded: string): string {
  return encoded.replaceAll(' ', '+');
}

function base64Bytes(encoded: string): Uint8Array {
  const compact = normaliseEncoded(encoded).replace(/[\r\n\t]/g, '');
  if (compact.length === 0 || compact.length % 4 !== 0 || !BASE64.test(compact)) {
    throw new CollectProtocolError('BAD_ENCODED', 'ENCODED is not base64 text');
  }
  return Uint8Array.from(atob(compact), (ch) => ch.charCodeAt(0));
}

function declaredEncoding(bytes: Uint8Array): 'utf-8' | 'windows-1251' {
  // The ENCODING line is ASCII in either charset, so it can be found before the text is decoded.
  let ascii = '';
  for (const byte of bytes) ascii += byte < 0x80 ? String.fromCharCode(byte) : '?';
  const value = /^[ \t]*ENCODING[ \t]*=[ \t]*([^\r\n]*)$/im.exec(ascii)?.[1]?.trim().toLowerCase();
  if (value === undefined || value === '' || value === 'cp1251' || value === 'windows-1251')
    return 'windows-1251';
  if (value === 'utf-8' || value === 'utf8') return 'utf-8';
  throw badField('ENCODING', 'must be utf-8 (or absent for windows-1251)');
}

/**
 * Values taken exactly as sent: an amount with spaces around it is refused naming the field, never
 * trimmed and booked (domain/decimal-amount.ts, decision 0085). Other values lose surrounding blanks.
 */
const EXACT_VALUES: ReadonlySet<string> = new Set(['AMOUNT']);

export function decodePacket(encoded: string): Packet {
  const bytes = base64Bytes(encoded);
  const encoding = declaredEncoding(bytes);
  let text: string;
  try {
    text = new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    throw new CollectProtocolError('BAD_ENCODED', `the packet is not valid ${encoding} text`);
  }
  // No field of any packet may hold a NUL (the read model's text columns refuse it).
  if (text.includes('\u0000'))
    throw new CollectProtocolError('BAD_ENCODED', 'the packet contains a NUL byte');
  const packet: Record<string, string> = {};
  for (const rawLine of text.split('\n')) {
    const line = rawLine.replace(/\r$/, '');
    if (line.trim() === '') continue;
    const eq = line.indexOf('=');
    const key = eq > 0 ? line.slice(0, eq).trim() : '';
    if (!KEY.test(key)) {
      throw new CollectProtocolError('BAD_ENCODED', 'every line of the packet must be KEY=VALUE');
    }
    const name = key.toUpperCase();
    if (Object.hasOwn(packet, name)) throw badField(name, 'appears more than once');
    const value = line.slice(eq + 1);
    packet[name] = EXACT_VALUES.has(name) ? value : value.trim();
  }
  if (Object.keys(packet).length === 0) {
    throw new CollectProtocolError('BAD_ENCODED', 'the packet is empty');
  }
  return packet;
}

/** A packet's ENCODED text: `KEY=VALUE` lines joined by `\n`, UTF-8, base64 (what merchants build). */
export function encodePacket(fields: Readonly<Record<string, string | number>>): string {
  const text = Object.entries(fields)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n');
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * The packet in canonical form (keys sorted, ENCODING left out): two submissions of one registration
 * are "the same" exactly when these texts are equal, whatever the line order or charset.
 */
export function canonicalPacket(packet: Packet): string {
  return Object.keys(packet)
    .filter((key) => key !== 'ENCODING')
    .sort()
    .map((key) => `${key}=${packet[key]}`)
    .join('\n');
}
