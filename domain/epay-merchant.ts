import { createHmac, createVerify, timingSafeEqual } from 'node:crypto';
import { parseExpTime } from './epay-time.ts';

/**
 * The merchant's side of the ePay protocol (docs/collect.md), as any merchant client of an ePay-style
 * gateway writes it: packets of `KEY=VALUE` lines sent as ENCODED (base64) with CHECKSUM (HMAC-SHA1 hex
 * keyed with the merchant secret), the gateway's `KEY=VALUE` text answers, and the notifications the
 * gateway POSTs (ENCODED, CHECKSUM, SIGNATURE: RSA-SHA256 over ENCODED) with their one-line-per-invoice
 * replies. Shared by every merchant client of the platform (the lending platform's disbursements); it
 * depends on no service, so any service may use it without reaching into another (decision 0025).
 */

/** ENCODED of a packet: base64 of its `KEY=VALUE` lines (UTF-8; the packet should say ENCODING=utf-8). */
export function encodePacket(fields: Record<string, string>): string {
  const lines = Object.entries(fields).map(([key, value]) => `${key}=${value}`);
  return Buffer.from(lines.join('\n'), 'utf8').toString('base64');
}

/** CHECKSUM of an ENCODED text: lowercase hex HMAC-SHA1 keyed with the merchant secret. */
export const checksumOf = (secret: string, encoded: string): string =>
  createHmac('sha1', secret).update(encoded, 'utf8').digest('hex');

/** A presented CHECKSUM against the expected one, in constant time (any letter case). */
export function checksumMatches(secret: string, encoded: string, presented: string): boolean {
  if (!/^[0-9a-fA-F]{40}$/.test(presented)) return false;
  return timingSafeEqual(Buffer.from(checksumOf(secret, encoded), 'hex'), Buffer.from(presented, 'hex'));
}

/** The gateway's SIGNATURE (base64 RSASSA-PKCS1-v1_5 with SHA-256) over ENCODED, with its public key (PEM). */
export function signatureMatches(publicKeyPem: string, encoded: string, signature: string): boolean {
  if (!signature) return false;
  try {
    return createVerify('RSA-SHA256').update(encoded, 'utf8').verify(publicKeyPem, signature, 'base64');
  } catch {
    return false;
  }
}

/** The gateway's text answer (`KEY=VALUE` lines) as fields; the first of a repeated key counts. */
export function parseTextAnswer(body: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of body.split(/\r?\n/)) {
    const eq = line.indexOf('=');
    if (eq > 0) fields[line.slice(0, eq).trim()] ??= line.slice(eq + 1).trim();
  }
  return fields;
}

/**
 * One line of a notification: `INVOICE=<n>:STATUS=<s>[:PAY_TIME=...:STAN=...:BCODE=...]`, with
 * `:CARD_TOKEN=...:CARD_BRAND=...:CARD_LAST4=...:CARD_EXP=MM/YYYY` when the INVOICE saved a card.
 */
export interface NotificationLine {
  invoice: string;
  status: string;
  payTime?: string | undefined;
  stan?: string | undefined;
  bcode?: string | undefined;
  /** The card the INVOICE saved at the gateway (SAVECARD=1): its token and display data. */
  card?: { token: string; brand: string; last4: string; expiry: string } | undefined;
}

/** The lines of a notification's ENCODED packet; a line without INVOICE or STATUS is left out. */
export function parseNotification(encoded: string): NotificationLine[] {
  const lines: NotificationLine[] = [];
  for (const line of Buffer.from(encoded, 'base64').toString('utf8').split('\n')) {
    const fields = new Map<string, string>();
    for (const part of line.trim().split(':')) {
      const eq = part.indexOf('=');
      if (eq > 0) fields.set(part.slice(0, eq), part.slice(eq + 1));
    }
    const invoice = fields.get('INVOICE');
    const status = fields.get('STATUS');
    const token = fields.get('CARD_TOKEN');
    if (invoice && status)
      lines.push({
        invoice,
        status,
        payTime: fields.get('PAY_TIME'),
        stan: fields.get('STAN'),
        bcode: fields.get('BCODE'),
        ...(token
          ? {
              card: {
                token,
                brand: fields.get('CARD_BRAND') ?? '',
                last4: fields.get('CARD_LAST4') ?? '',
                expiry: fields.get('CARD_EXP') ?? '',
              },
            }
          : {}),
      });
  }
  return lines;
}

/** The merchant's answer to one invoice: OK recorded, NO unknown to it, ERR try again later. */
export type NotificationReply = 'OK' | 'NO' | 'ERR';

/** The reply body: one `INVOICE=<n>:STATUS=<OK|NO|ERR>` line per invoice, each ended by `\n`. */
export const notificationReplyBody = (replies: readonly { invoice: string; reply: NotificationReply }[]) =>
  replies.map(({ invoice, reply }) => `INVOICE=${invoice}:STATUS=${reply}\n`).join('');

/**
 * The instant (ISO) of a gateway's `EXP_TIME` (`DD.MM.YYYY hh:mm:ss`, Europe/Sofia local time, as ePay
 * answers); undefined when it is not of that form.
 */
export function expTimeInstant(text: string): string | undefined {
  return parseExpTime(text.trim())?.toISOString();
}
