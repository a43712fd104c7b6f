import { StatementDocumentError } from './statement-model.ts';

/** A camt document's bytes to text, decoded as the document says it is written. */

/** `<?xml version="1.0" encoding="ISO-8859-1"?>`: the declared encoding (XML 1.0, 4.3.3). */
const DECLARED_ENCODING = /^\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']([A-Za-z][A-Za-z0-9._:-]*)["']/;

/**
 * The document's text, decoded as it says it is written: a byte order mark (UTF-8, UTF-16), else the
 * encoding its XML declaration names (ISO-8859-1, windows-1252, ...), else UTF-8 (XML's default).
 * Bytes that are not valid in that encoding, or an encoding no decoder knows, refuse the document.
 */
export function decodeStatementBytes(bytes: Uint8Array): string {
  const bom: [number[], string][] = [
    [[0xef, 0xbb, 0xbf], 'utf-8'],
    [[0xff, 0xfe], 'utf-16le'],
    [[0xfe, 0xff], 'utf-16be'],
  ];
  const marked = bom.find(([mark]) => mark.every((byte, index) => bytes[index] === byte));
  // UTF-16 without a mark still starts with `<` as two bytes.
  const unmarked16 =
    bytes[0] === 0x3c && bytes[1] === 0
      ? 'utf-16le'
      : bytes[0] === 0 && bytes[1] === 0x3c
        ? 'utf-16be'
        : undefined;
  // The declaration is ASCII in every ASCII-compatible encoding: read it as latin1.
  const prolog = new TextDecoder('latin1').decode(bytes.subarray(0, 200));
  const label = marked?.[1] ?? unmarked16 ?? DECLARED_ENCODING.exec(prolog)?.[1] ?? 'utf-8';
  const decoder = (() => {
    try {
      return new TextDecoder(label, { fatal: true });
    } catch {
      throw new StatementDocumentError(
        'statement_unsupported_encoding',
        `The document declares the encoding ${label}, which cannot be read`,
      );
    }
  })();
  if (decoder.encoding === 'windows-1252') return decodeWindows1252(bytes);
  try {
    return decoder.decode(bytes);
  } catch {
    throw new StatementDocumentError(
      'statement_malformed_xml',
      `The document is not valid ${label} (the encoding its XML declaration names, UTF-8 when none)`,
    );
  }
}

/** windows-1252's letters at 0x80-0x9F (undefined ones stay C1 controls, as the WHATWG table has them). */
const WINDOWS_1252_C1 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * windows-1252 (and ISO-8859-1, which the Encoding Standard reads as it): Node 20's TextDecoder gives
 * 0x80-0x9F as C1 controls instead of `€`, `–`, `„` ..., so those 32 bytes are mapped here.
 */
function decodeWindows1252(bytes: Uint8Array): string {
  let text = '';
  for (let start = 0; start < bytes.length; start += 8192) {
    const chunk = bytes.subarray(start, start + 8192);
    text += String.fromCharCode(
      ...Array.from(chunk, (byte) =>
        byte >= 0x80 && byte < 0xa0 ? WINDOWS_1252_C1.charCodeAt(byte - 0x80) : byte,
      ),
    );
  }
  return text;
}
