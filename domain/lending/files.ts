import { randomBytes } from 'node:crypto';

/**
 * Rules of uploaded files (docs/lending.md "Files and user documents"). Pure: what a file may be called,
 * typed and keyed as. The client's file name is only ever shown (made harmless here); storage keys are
 * the platform's own ids.
 */

/** A new file id (`fil_` + 128 random bits, base64url): the spec's fileId and documentId. */
export const newFileId = () => `fil_${randomBytes(16).toString('base64url')}`;
export const newUserDocumentId = () => `udoc_${randomBytes(12).toString('base64url')}`;

/** The shape of ids the platform issues (anything else is not found without a lookup). */
export const FILE_ID_PATTERN = /^fil_[A-Za-z0-9_-]{22}$/;

/** Where the content of a file is kept in the storage: from its id only. */
export const storageKeyOf = (fileId: string) => {
  if (!FILE_ID_PATTERN.test(fileId)) throw new Error('not a file id');
  return `files/${fileId}`;
};

const MAX_NAME_LENGTH = 200;

/**
 * The client's file name as it is kept and shown: its last path segment (no folders, no `..`), without
 * control and bidirectional-override characters, at most 200 characters with its extension kept;
 * `file` when nothing is left.
 */
export function safeFileName(name: string | undefined): string {
  const lastSegment = (name ?? '').split(/[/\\]/).pop() ?? '';
  const cleaned = lastSegment
    .normalize('NFC')
    // C0/C1 controls, DEL, bidi overrides and isolates, line/paragraph separators, BOM.
    .replace(/[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]/gu, '')
    .replace(/\p{Cs}/gu, '')
    .trim()
    .replace(/^\.+/, '');
  if (!cleaned) return 'file';
  const chars = [...cleaned];
  if (chars.length <= MAX_NAME_LENGTH) return cleaned;
  const dot = cleaned.lastIndexOf('.');
  const extension = dot > 0 ? [...cleaned.slice(dot)].slice(0, 16).join('') : '';
  return chars.slice(0, MAX_NAME_LENGTH - extension.length).join('') + extension;
}

/**
 * `Content-Disposition: attachment` for `fileName` (RFC 6266): an ASCII `filename` fallback (quotes,
 * backslashes and non-ASCII replaced) and the exact name as RFC 5987 `filename*` (UTF-8, percent-encoded).
 */
export function contentDisposition(fileName: string): string {
  const name = safeFileName(fileName);
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** The media type of a Content-Type value: `type/subtype` lower-cased, without parameters. */
export const mediaTypeOf = (contentType: string | undefined) =>
  (contentType ?? '').split(';')[0]!.trim().toLowerCase();

/** The first bytes the media types we can recognise start with (a declared type must match them). */
const SIGNATURES: Readonly<Record<string, readonly (readonly number[])[]>> = {
  'application/pdf': [[0x25, 0x50, 0x44, 0x46, 0x2d]], // %PDF-
  'image/png': [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  'image/jpeg': [[0xff, 0xd8, 0xff]],
  'image/gif': [
    [0x47, 0x49, 0x46, 0x38, 0x37, 0x61],
    [0x47, 0x49, 0x46, 0x38, 0x39, 0x61],
  ],
};

/** How many first bytes `contentMatchesType` needs. */
export const SIGNATURE_BYTES = 8;

/**
 * Whether content starting with `head` may be of `mediaType`: a type with a known signature must start
 * with it (a script sent as image/png is refused); other allowed types are taken as declared.
 */
export function contentMatchesType(mediaType: string, head: Uint8Array): boolean {
  const signatures = SIGNATURES[mediaType];
  if (!signatures) return true;
  return signatures.some((signature) => signature.every((byte, index) => head[index] === byte));
}
