import { createHmac } from 'node:crypto';

/**
 * What a merchant's existing ePay client does, written independently of the gateway's code:
 * base64 of `KEY=VALUE` lines and the lowercase hex HMAC-SHA1 of that text with the secret.
 */
export function signedPacket(fields: Record<string, string>, secret: string) {
  const text = Object.entries(fields)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n');
  const encoded = Buffer.from(text, 'utf8').toString('base64');
  return { ENCODED: encoded, CHECKSUM: createHmac('sha1', secret).update(encoded).digest('hex') };
}

export interface TextReply {
  status: number;
  body: string;
  fields: Record<string, string>;
  headers: Headers;
}

export async function textReply(response: Response): Promise<TextReply> {
  const body = await response.text();
  const fields: Record<string, string> = {};
  for (const line of body.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) fields[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return { status: response.status, body, fields, headers: response.headers };
}

export const getText = async (url: string, params: Record<string, string>) =>
  textReply(await fetch(`${url}?${new URLSearchParams(params)}`));

export const postForm = async (url: string, params: Record<string, string>) =>
  textReply(await fetch(url, { method: 'POST', body: new URLSearchParams(params) }));

const two = (n: number) => String(n).padStart(2, '0');

/** EXP_TIME `DD.MM.YYYY hh:mm:ss` in Europe/Sofia, `offsetMs` from now. */
export function expTimeIn(offsetMs: number): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Sofia',
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(new Date(Date.now() + offsetMs))
      .map((part) => [part.type, part.value]),
  );
  return `${parts.day}.${parts.month}.${parts.year} ${two(Number(parts.hour))}:${parts.minute}:${parts.second}`;
}

let counter = 0;
/** A fresh INVOICE per call. */
export const newInvoice = () => `${Date.now()}${String(++counter).padStart(3, '0')}`;
