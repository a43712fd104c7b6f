/**
 * SMS segment counting (3GPP TS 23.038). GSM-7 fits 160 characters in one segment and 153 per segment
 * when concatenated (the UDH takes 7); characters of the extension table count twice. Anything outside
 * GSM-7 is sent as UCS-2: 70 per segment, 67 when concatenated, counted in UTF-16 code units.
 * Pure: used by the API (to answer at once) and by workflows.
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

export function countSegments(text: string): SegmentCount {
  let septets = 0;
  for (const ch of text) {
    if (basic.has(ch)) septets += 1;
    else if (extension.has(ch)) septets += 2;
    else return ucs2(text);
  }
  return { encoding: 'GSM-7', units: septets, parts: septets <= 160 ? 1 : Math.ceil(septets / 153) };
}

function ucs2(text: string): SegmentCount {
  const units = text.length; // UTF-16 code units
  return { encoding: 'UCS-2', units, parts: units <= 70 ? 1 : Math.ceil(units / 67) };
}
