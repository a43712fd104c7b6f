/**
 * The merchant notification packet and the merchant's reply (ePay.bg conventions), and the rules of
 * delivering them. Pure: safe to import from workflow code (the HMAC and RSA signature are computed
 * by the activity, see activities/collect/merchant-notifications.ts).
 *
 * Packet (decoded ENCODED), one line per invoice, each line ended by `\n`:
 *   INVOICE=<n>:STATUS=<PAID|DENIED|EXPIRED|SAVED|REVERSED>[:PAY_TIME=YYYYMMDDhhmmss:STAN=<n>:BCODE=<n>]
 * (REVERSED: `:PAY_TIME=` of the payment taken back alone, when known; decision 0063, amended 2026-11-28)
 *     [:CARD_TOKEN=ctk_<24 hex>:CARD_BRAND=<VISA|...>:CARD_LAST4=<4 digits>:CARD_EXP=MM/YYYY]
 * (the CARD_ fields when the INVOICE saved a card, SAVECARD=1; SAVED: a verification, nothing paid).
 * Reply, one line per invoice, either form:
 *   INVOICE=<n>:STATUS=<OK|ERR|NO>[:ERR=<text>]      or      <n>=<OK|ERR|NO>
 */

export type NotificationStatus = 'PAID' | 'DENIED' | 'EXPIRED' | 'SAVED' | 'REVERSED';
export type NotificationReplyStatus = 'OK' | 'ERR' | 'NO';

/**
 * Where a notification stands: `pending` while attempts go on; `delivered` (the merchant answered
 * OK); `unknown` (NO: the merchant does not know the invoice; final); `failed` (the retry schedule ran
 * out); `no_url` (the merchant has no notification URL: nothing is sent, the status is readable).
 */
export const notificationDeliveryStates = ['pending', 'delivered', 'unknown', 'failed', 'no_url'] as const;
export type NotificationDeliveryState = (typeof notificationDeliveryStates)[number];

export interface NotificationLine {
  invoice: string;
  status: NotificationStatus;
  payTime?: string | undefined;
  stan?: string | undefined;
  bcode?: string | undefined;
  /** The card this INVOICE saved (decision 0045). */
  card?: { token: string; brand: string; last4: string /** MM/YYYY */; expiry: string } | undefined;
}

/** The card fields of a stored notification (all or none), as a line's `card`. */
export function notifiedCard(row: {
  cardToken: string | null;
  cardBrand: string | null;
  cardLast4: string | null;
  cardExpiry: string | null;
}): NotificationLine['card'] {
  const { cardToken, cardBrand, cardLast4, cardExpiry } = row;
  return cardToken && cardBrand && cardLast4 && cardExpiry
    ? { token: cardToken, brand: cardBrand, last4: cardLast4, expiry: cardExpiry }
    : undefined;
}

/** `CARD_EXP`: MM/YYYY. */
export const cardExpiryText = (month: number, year: number) => `${String(month).padStart(2, '0')}/${year}`;

/**
 * One line of the packet. PAY_TIME, STAN and BCODE go together with PAID; a REVERSED carries the PAY_TIME
 * of the payment taken back, alone (which payment: a merchant matches it to the PAID it booked); CARD_
 * fields last.
 */
export function notificationLine(line: NotificationLine): string {
  let text = `INVOICE=${line.invoice}:STATUS=${line.status}`;
  if (line.status === 'PAID' && line.payTime) {
    text += `:PAY_TIME=${line.payTime}:STAN=${line.stan ?? '000000'}:BCODE=${line.bcode ?? '000000'}`;
  } else if (line.status === 'REVERSED' && line.payTime) {
    text += `:PAY_TIME=${line.payTime}`;
  }
  if (line.card) {
    const { token, brand, last4, expiry } = line.card;
    text += `:CARD_TOKEN=${token}:CARD_BRAND=${brand}:CARD_LAST4=${last4}:CARD_EXP=${expiry}`;
  }
  return text;
}

/** The decoded packet: every line ended by a newline, in the order given. */
export function notificationPacket(lines: readonly NotificationLine[]): string {
  return lines.map((line) => `${notificationLine(line)}\n`).join('');
}

export interface ReplyEntry {
  status: NotificationReplyStatus;
  /** The merchant's `ERR=` text, if it gave one. */
  error?: string | undefined;
}

export type ParsedReply = { ok: true; entries: Map<string, ReplyEntry> } | { ok: false; reason: string };

const REPLY_STATUSES = new Set<string>(['OK', 'ERR', 'NO']);
const LONG_FORM = /^INVOICE=([^:=\s]+):STATUS=([A-Za-z]+)((?::[A-Z_]+=[^:]*)*)$/;
const SHORT_FORM = /^([^:=\s]+)=([A-Za-z]+)$/;

/**
 * Reads the merchant's reply. Blank lines are ignored; any other line that is not one of the two
 * forms makes the whole reply unparsable (retried), since a half-read reply cannot be trusted.
 * When an invoice appears twice, the first answer counts.
 */
export function parseNotificationReply(body: string): ParsedReply {
  const entries = new Map<string, ReplyEntry>();
  for (const raw of body.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    const long = LONG_FORM.exec(line);
    const short = long ? undefined : SHORT_FORM.exec(line);
    const match = long ?? short;
    if (!match) return { ok: false, reason: `unreadable reply line "${line.slice(0, 80)}"` };
    const invoice = match[1]!;
    const status = match[2]!.toUpperCase();
    if (!REPLY_STATUSES.has(status)) {
      return { ok: false, reason: `unknown reply status "${match[2]}" for invoice ${invoice}` };
    }
    const error = long?.[3] ? /:ERR=([^:]*)/.exec(long[3])?.[1] : undefined;
    if (!entries.has(invoice)) entries.set(invoice, { status: status as NotificationReplyStatus, error });
  }
  if (entries.size === 0) return { ok: false, reason: 'empty reply' };
  return { ok: true, entries };
}

/**
 * The outcome of one notification in one attempt: the merchant's answer for its invoice, or why
 * there was none (`missing`: the reply did not mention the invoice; `transport`: no usable reply at
 * all: timeout, connection error, non-2xx, unparsable; `settled`: already final, not sent).
 */
export type NotificationAttemptOutcome = NotificationReplyStatus | 'missing' | 'transport' | 'settled';

/** OK and NO end the delivery; ERR, a missing answer and a transport failure are retried. */
export function isFinalOutcome(outcome: NotificationAttemptOutcome): boolean {
  return outcome === 'OK' || outcome === 'NO' || outcome === 'settled';
}
