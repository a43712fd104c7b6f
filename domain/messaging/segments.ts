/**
 * SMS segment counting and splitting (3GPP TS 23.038, 23.040). GSM-7 fits 160 characters in one
 * segment and 153 per part when concatenated (the 6-byte UDH of an 8-bit reference takes 7 septets);
 * characters of the extension table count twice (escape + character) and are never split across
 * parts. Anything outside GSM-7 is sent as UCS-2: 70 per segment, 67 per part, counted in UTF-16 code
 * units, a surrogate pair (an emoji) never split. 8-bit binary data: 140 bytes, 134 per part.
 * The count the API answers (and prices) is the number of parts the splitting makes, so the two
 * always agree. Pure: used by the API (to answer at once), the SMPP connector and workflows.
 */
const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM7_EXTENSION = '^{}\\[~]|€\f';

const basic = new Set(GSM7_BASIC);
const extension = new Set(GSM7_EXTENSION);

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface SegmentCount {
  encoding: SmsEncoding;
  /** Length in the units of the encoding (septets for GSM-7, UTF-16 code units for UCS-2). */
  units: number;
  parts: number;
}

export const MAX_SMS_PARTS = 10;

/** How a long text goes to an SMSC (SMPP_LONG_MESSAGES, decision 0055). */
export const LONG_MESSAGE_MODES = ['message_payload', 'udh', 'sar'] as const;
export type LongMessageMode = (typeof LONG_MESSAGE_MODES)[number];

/** Octets of one short message's user data. */
const USER_DATA_OCTETS = 140;
/** Concatenation UDH sizes: UDHL + IEI + IEDL + reference (1 or 2) + total + sequence. */
export const UDH_OCTETS = { 8: 6, 16: 7 } as const;
export type ReferenceBits = keyof typeof UDH_OCTETS;

/** How many units of each encoding fit in one part behind a UDH of `udhOctets` (padded to septets for GSM-7). */
export function partCapacity(encoding: SmsEncoding | 'binary', udhOctets: number): number {
  const octets = USER_DATA_OCTETS - udhOctets;
  // The UDH takes whole septets: 6 octets are 48 bits, 7 septets with the fill bits (160 - 7 = 153).
  if (encoding === 'GSM-7') return (USER_DATA_OCTETS * 8) / 7 - Math.ceil((udhOctets * 8) / 7);
  if (encoding === 'UCS-2') return Math.floor(octets / 2);
  return octets;
}

/** Septets of one character in GSM-7, or undefined when it is not in GSM-7. */
function septets(ch: string): 1 | 2 | undefined {
  if (basic.has(ch)) return 1;
  if (extension.has(ch)) return 2;
  return undefined;
}

export function encodingOf(text: string): SmsEncoding {
  for (const ch of text) if (septets(ch) === undefined) return 'UCS-2';
  return 'GSM-7';
}

export interface SegmentedText {
  encoding: SmsEncoding;
  /** The text of each part, in order; one element when the text fits one segment. */
  parts: string[];
}

/**
 * Splits a text into the parts it is sent as. A text that fits one segment (160 septets, 70 UCS-2
 * units) is one part; a longer one is cut into parts of at most 153 septets / 67 units (with an 8-bit
 * reference; `udhOctets` 7 for a 16-bit one: 152 / 66), an escaped character or a surrogate pair
 * always kept whole in one part.
 */
export function splitSegments(text: string, udhOctets: number = UDH_OCTETS[8]): SegmentedText {
  const encoding = encodingOf(text);
  const weight = (ch: string) => (encoding === 'GSM-7' ? (septets(ch) ?? 1) : ch.length);
  let total = 0;
  for (const ch of text) total += weight(ch);
  if (total <= partCapacity(encoding, 0)) return { encoding, parts: [text] };

  const capacity = partCapacity(encoding, udhOctets);
  const parts: string[] = [];
  let current = '';
  let used = 0;
  for (const ch of text) {
    const units = weight(ch);
    if (used + units > capacity) {
      parts.push(current);
      current = '';
      used = 0;
    }
    current += ch;
    used += units;
  }
  if (current) parts.push(current);
  return { encoding, parts };
}

/** 8-bit binary data as parts: one of 140 bytes, or parts of 134 (8-bit reference UDH). */
export function splitBinary(data: Uint8Array, udhOctets: number = UDH_OCTETS[8]): Uint8Array[] {
  if (data.length <= USER_DATA_OCTETS) return [data];
  const capacity = partCapacity('binary', udhOctets);
  const parts: Uint8Array[] = [];
  for (let at = 0; at < data.length; at += capacity) parts.push(data.subarray(at, at + capacity));
  return parts;
}

export function countSegments(text: string): SegmentCount {
  const { encoding, parts } = splitSegments(text);
  let units = 0;
  for (const ch of text) units += encoding === 'GSM-7' ? (septets(ch) ?? 1) : ch.length;
  return { encoding, units, parts: parts.length };
}

/**
 * The concatenation reference of a message (UDH IEI 0x00 / 0x08, or SMPP `sar_msg_ref_num`): derived
 * from the message id (FNV-1a), so a retried submission sends the same parts under the same reference
 * and the handset puts them together once (decision 0055).
 */
export function concatenationReference(messageId: string, bits: ReferenceBits): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < messageId.length; i += 1) {
    hash ^= messageId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return bits === 8
    ? (hash ^ (hash >>> 8) ^ (hash >>> 16) ^ (hash >>> 24)) & 0xff
    : (hash ^ (hash >>> 16)) & 0xffff;
}

/** The concatenation UDH of part `seq` (1-based) of `total`: IEI 0x00 (8-bit reference) or 0x08 (16-bit). */
export function concatenationUdh(
  reference: number,
  total: number,
  seq: number,
  bits: ReferenceBits,
): Uint8Array {
  return bits === 8
    ? Uint8Array.of(0x05, 0x00, 0x03, reference & 0xff, total, seq)
    : Uint8Array.of(0x06, 0x08, 0x04, (reference >> 8) & 0xff, reference & 0xff, total, seq);
}

export interface ConcatenationInfo {
  reference: number;
  total: number;
  seq: number;
}

/** Reads a concatenation information element (IEI 0x00 or 0x08) from a UDH (with its length octet). */
export function readConcatenationUdh(udh: Uint8Array): ConcatenationInfo | undefined {
  let at = 1;
  while (at + 1 < udh.length && at <= (udh[0] ?? 0)) {
    const iei = udh[at] ?? 0;
    const length = udh[at + 1] ?? 0;
    const data = udh.subarray(at + 2, at + 2 + length);
    if (iei === 0x00 && length === 3) return { reference: data[0]!, total: data[1]!, seq: data[2]! };
    if (iei === 0x08 && length === 4)
      return { reference: (data[0]! << 8) | data[1]!, total: data[2]!, seq: data[3]! };
    at += 2 + length;
  }
  return undefined;
}
