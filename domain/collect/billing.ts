/**
 * The merchant-hosted billing protocol (ePay.bg "billing" conventions): the gateway calls
 * `GET <billingUrl>/pay/init` (check) and `GET <billingUrl>/pay/confirm` (confirmation).
 * Pure: safe to import from workflow code (the HMAC itself is computed in activities and the sandbox).
 *
 * CHECKSUM: lowercase hex HMAC-SHA1, keyed with the merchant secret, over every parameter except
 * CHECKSUM sorted by name, each as `<NAME><VALUE>\n` (e.g. `IDN9700001\nMERCHANTIDD123456789\n...`).
 */

export type BillingCode = '00' | '13' | '14' | '62' | '80' | '93' | '94' | '96';

/** What each reply code means and what the gateway does about it. */
export const billingCodes: Record<BillingCode, { meaning: string; effect: 'ok' | 'retry' | 'final' }> = {
  '00': { meaning: 'OK', effect: 'ok' },
  '13': { meaning: 'Invalid amount', effect: 'final' },
  '14': { meaning: 'Invalid IDN', effect: 'final' },
  '62': { meaning: 'No obligation (nothing due, or already paid)', effect: 'final' },
  '80': { meaning: 'Temporarily unavailable', effect: 'retry' },
  '93': { meaning: 'Invalid checksum', effect: 'final' },
  // The merchant has already processed this transaction: for the gateway that is success.
  '94': { meaning: 'Duplicate (already done)', effect: 'ok' },
  '96': { meaning: 'General error', effect: 'final' },
};

export const isBillingCode = (code: string): code is BillingCode => code in billingCodes;

/** The text the billing CHECKSUM is computed over. */
export function billingChecksumInput(params: Record<string, string>): string {
  return Object.keys(params)
    .filter((name) => name !== 'CHECKSUM')
    .sort()
    .map((name) => `${name}${params[name]}\n`)
    .join('');
}

export interface BillingReply {
  code: BillingCode;
  /** Amount due in minor units (stotinki), when the merchant stated it. */
  amountMinor?: number | undefined;
  shortDesc?: string | undefined;
  /** Due date, YYYYMMDD. */
  validTo?: string | undefined;
  /** The merchant's invoice numbers covered by the payment (comma-separated as received). */
  invoices?: string | undefined;
}

export type ParsedBillingReply = { ok: true; reply: BillingReply } | { ok: false; reason: string };

/**
 * Reads a billing reply: a JSON object `{"STATUS":"00","AMOUNT":1250,...}` (what ePay's billing
 * merchants answer) or the same fields as `KEY=VALUE` lines. STATUS is required and must be a known
 * code; AMOUNT, when present, a whole number of minor units.
 */
export function parseBillingReply(body: string): ParsedBillingReply {
  const fields = new Map<string, string>();
  const text = body.trim();
  if (text.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { ok: false, reason: 'reply is not valid JSON' };
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return { ok: false, reason: 'reply is not a JSON object' };
    }
    for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
      if (typeof value === 'string' || typeof value === 'number')
        fields.set(key.toUpperCase(), String(value));
      else if (Array.isArray(value)) fields.set(key.toUpperCase(), value.map(String).join(','));
    }
  } else {
    for (const line of text.split(/\r?\n/)) {
      const match = /^\s*([A-Za-z_]+)\s*=(.*)$/.exec(line);
      if (match) fields.set(match[1]!.toUpperCase(), match[2]!.trim());
    }
  }
  const code = fields.get('STATUS');
  if (code === undefined) return { ok: false, reason: 'reply has no STATUS' };
  if (!isBillingCode(code)) return { ok: false, reason: `unknown STATUS "${code.slice(0, 10)}"` };
  const amountText = fields.get('AMOUNT');
  if (amountText !== undefined && !/^\d{1,15}$/.test(amountText)) {
    return { ok: false, reason: `AMOUNT "${amountText.slice(0, 20)}" is not a whole number of minor units` };
  }
  return {
    ok: true,
    reply: {
      code,
      amountMinor: amountText === undefined ? undefined : Number(amountText),
      shortDesc: fields.get('SHORTDESC'),
      validTo: fields.get('VALIDTO'),
      invoices: fields.get('INVOICES'),
    },
  };
}

/** TID = DATE(14) + STAN(6) + AID(6): unique per office payment. */
export function billingTid(date: string, stan: string, aid: string): string {
  return `${date}${stan.padStart(6, '0')}${aid.padStart(6, '0')}`;
}

/** Minor units as the decimal the office shows (`1250` → `12.50`). */
export const formatMinor = (minor: number) =>
  `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
