import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The CHECKSUM of a one-touch no-registration request: the lowercase hex HMAC-SHA1, keyed with the
 * application SECRET, of every request parameter except CHECKSUM, sorted by name, one `KEY VALUE\n`
 * line each (docs/collect.md, decision 0013).
 */
export type OneTouchParameters = Readonly<Record<string, string>>;

const sortedNames = (parameters: OneTouchParameters) =>
  Object.keys(parameters)
    .filter((name) => name !== 'CHECKSUM')
    // Byte order, not locale order: both sides must sort identically.
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** The signed text: `KEY VALUE\n` per parameter. */
export function oneTouchRequestData(parameters: OneTouchParameters): string {
  return sortedNames(parameters)
    .map((name) => `${name} ${parameters[name]}\n`)
    .join('');
}

/** The same lines without the space (`KEYVALUE\n`), as ePay.bg's published examples concatenate them. */
export function oneTouchRequestDataConcatenated(parameters: OneTouchParameters): string {
  return sortedNames(parameters)
    .map((name) => `${name}${parameters[name]}\n`)
    .join('');
}

export function oneTouchChecksum(parameters: OneTouchParameters, secret: string): string {
  return createHmac('sha1', secret).update(oneTouchRequestData(parameters), 'utf8').digest('hex');
}

const hmac = (text: string, secret: string) => createHmac('sha1', secret).update(text, 'utf8').digest();

/**
 * Whether `presented` (hex, any case) is the checksum of `parameters`. Compared in constant time on
 * equal-length digests; both line forms are accepted so clients written for either keep working.
 */
export function verifyOneTouchChecksum(
  parameters: OneTouchParameters,
  presented: string,
  secret: string,
): boolean {
  if (!/^[0-9a-fA-F]{40}$/.test(presented)) return false;
  const given = Buffer.from(presented, 'hex');
  const spaced = timingSafeEqual(given, hmac(oneTouchRequestData(parameters), secret));
  const concatenated = timingSafeEqual(given, hmac(oneTouchRequestDataConcatenated(parameters), secret));
  return spaced || concatenated;
}
