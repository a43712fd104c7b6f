import type { DeliveryReceipt, MessageFinalStatus } from './delivery-receipt.ts';

/**
 * The SMPP 3.4 delivery receipt text (Appendix B of the specification), carried in the short_message of
 * a deliver_sm with esm_class 0x04:
 *   id:<id> sub:001 dlvrd:001 submit date:YYMMDDhhmm done date:YYMMDDhhmm stat:DELIVRD err:000 text:...
 * Carriers differ in details (case, seconds in the dates, longer ids), so parsing is tolerant.
 * Pure: no I/O.
 */
export interface SmppReceiptFields {
  id: string;
  stat: string;
  err: string;
  /** As written in the receipt: YYMMDDhhmm or YYMMDDhhmmss (carrier time, read as UTC). */
  submitDate: string;
  doneDate: string;
}

export interface SmppReceiptInput {
  id: string;
  stat: string;
  /** Network-specific error code; written as three digits. */
  err?: string | number;
  submitDate: Date | string;
  doneDate: Date | string;
  submitted?: number;
  delivered?: number;
  /** The first characters of the message; the format allows 20. */
  text?: string;
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** YYMMDDhhmm in UTC. */
export function toSmppDate(date: Date): string {
  return (
    pad(date.getUTCFullYear() % 100) +
    pad(date.getUTCMonth() + 1) +
    pad(date.getUTCDate()) +
    pad(date.getUTCHours()) +
    pad(date.getUTCMinutes())
  );
}

export function formatSmppReceipt(fields: SmppReceiptInput): string {
  const date = (value: Date | string) => (typeof value === 'string' ? value : toSmppDate(value));
  const err = typeof fields.err === 'number' ? pad(fields.err, 3) : (fields.err ?? '000');
  const delivered = fields.delivered ?? (fields.stat === 'DELIVRD' ? 1 : 0);
  return (
    `id:${fields.id} sub:${pad(fields.submitted ?? 1, 3)} dlvrd:${pad(delivered, 3)} ` +
    `submit date:${date(fields.submitDate)} done date:${date(fields.doneDate)} ` +
    `stat:${fields.stat} err:${err} text:${(fields.text ?? '').slice(0, 20)}`
  );
}

const FIELD = /(id|sub|dlvrd|submit date|done date|stat|err):(\S*)/gi;

/** Returns undefined when the text is not a delivery receipt (no id or no stat). */
export function parseSmppReceipt(text: string): SmppReceiptFields | undefined {
  // The free text comes last and may contain anything, including "stat:"; read only what precedes it.
  const textAt = text.search(/(^|\s)text:/i);
  const head = textAt >= 0 ? text.slice(0, textAt) : text;
  const found = new Map<string, string>();
  for (const match of head.matchAll(FIELD)) {
    const key = match[1]!.toLowerCase();
    if (!found.has(key)) found.set(key, match[2]!);
  }
  const id = found.get('id');
  const stat = found.get('stat');
  if (!id || !stat) return undefined;
  return {
    id,
    stat: stat.toUpperCase(),
    err: found.get('err') ?? '000',
    submitDate: found.get('submit date') ?? '',
    doneDate: found.get('done date') ?? '',
  };
}

export function receiptStatus(stat: string): MessageFinalStatus {
  switch (stat.toUpperCase()) {
    case 'DELIVRD':
      return 'delivered';
    case 'UNDELIV':
      return 'undeliverable';
    case 'EXPIRED':
      return 'expired';
    case 'REJECTD':
      return 'rejected';
    default:
      // DELETED, UNKNOWN and anything a carrier invents: the message did not arrive, cause unknown.
      return 'failed';
  }
}

/** YYMMDDhhmm(ss) → ISO 8601 (UTC, 20YY); undefined when it is not such a date. */
export function smppDateToIso(value: string): string | undefined {
  const match = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?$/.exec(value);
  if (!match) return undefined;
  const [, yy, mm, dd, hh, mi, ss] = match;
  const date = new Date(
    Date.UTC(2000 + Number(yy), Number(mm) - 1, Number(dd), Number(hh), Number(mi), Number(ss ?? 0)),
  );
  // Date.UTC rolls 31 February over into March; such a date is not a date.
  if (date.getUTCMonth() !== Number(mm) - 1 || date.getUTCDate() !== Number(dd)) return undefined;
  return date.toISOString();
}

/**
 * The DeliveryReceipt of a receipt text. The receipted_message_id TLV, when present, names the message
 * more reliably than the text (some carriers write the id in decimal there).
 */
export function deliveryReceiptFromSmpp(
  text: string,
  receiptedMessageId?: string,
): DeliveryReceipt | undefined {
  const fields = parseSmppReceipt(text);
  if (!fields) return undefined;
  const doneAt = smppDateToIso(fields.doneDate);
  return {
    carrierMessageId: receiptedMessageId || fields.id,
    status: receiptStatus(fields.stat),
    carrierStatus: fields.stat,
    ...(/^0*$/.test(fields.err) ? {} : { errorCode: fields.err }),
    ...(doneAt ? { doneAt } : {}),
  };
}
