import { checksumOf, encodePacket, expTimeInstant, parseTextAnswer } from '../../domain/epay-merchant.ts';

/**
 * The payment-collection gateway as the lending platform's merchant client sees it (decision 0041):
 * only its public merchant interface over HTTP, exactly as a third-party merchant's ePay client calls
 * it (docs/collect.md): `office/send.cgi` registers a cash payout (decision 0041), `office/reg_vnbel.cgi`
 * a deposit slip, `card/charge.cgi` charges a saved card and `card/forget.cgi` forgets it (decision
 * 0045), the card page (`POST /`, PAGE=credit_paydirect) saves a card from the customer's browser, and
 * `.well-known/notification-key.pem` publishes the key its notifications are signed with. No module of
 * the collect service is imported: lending is an outsider there.
 */

/** The tenant's merchant credentials at the gateway. */
export interface MerchantCredentials {
  min: string;
  secret: string;
}

export interface CashPayoutOrder extends MerchantCredentials {
  invoice: string;
  /** AMOUNT as the gateway takes it (`1500.00`). */
  amount: string;
  currency: string;
  recipientName: string;
  recipientId: string;
  /** DESCR, at most 100 characters. */
  description: string;
}

export interface RegisteredPayout {
  /** The IDN (= SYS_CODE, what the recipient quotes at the office); null when the gateway did not say. */
  idn: string | null;
  expTime: string | null;
  /**
   * The INVOICE was registered before: the same packet again (`Idempotent-Replayed`), or a different one
   * (`DUPLICATE_INVOICE`, e.g. the customer's details changed between two tries). Either way the payout
   * of this INVOICE exists once at the gateway, and its notifications name the INVOICE.
   */
  replayed: boolean;
}

/** The gateway refused the packet (a 4xx protocol error other than a repeated INVOICE): asking again cannot help. */
export class GatewayRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'GatewayRefused';
  }
}

/** The gateway could not be reached, failed or did not answer in time: the same order may be sent again. */
export class GatewayUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GatewayUnavailable';
  }
}

/**
 * The gateway's base URL: LENDING_COLLECT_URL; unset (sandbox mode: production refuses to start
 * without it), this platform's own gateway at PUBLIC_BASE_URL, else at the API's own port on loopback.
 */
export function collectGatewayUrl(config: {
  LENDING_COLLECT_URL?: string | undefined;
  PUBLIC_BASE_URL?: string | undefined;
  PORT: number;
}): string {
  const own = config.PUBLIC_BASE_URL
    ? `${config.PUBLIC_BASE_URL.replace(/\/+$/, '')}/collect`
    : `http://127.0.0.1:${config.PORT}/collect`;
  return (config.LENDING_COLLECT_URL ?? own).replace(/\/+$/, '');
}

async function get(
  url: string,
  timeoutMs: number,
): Promise<{ status: number; headers: Headers; body: string }> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
    return { status: response.status, headers: response.headers, body: await response.text() };
  } catch (error) {
    throw new GatewayUnavailable(`collection gateway unreachable: ${(error as Error).message}`);
  }
}

/** A packet signed with the merchant's secret, sent as `GET <gateway><path>?ENCODED=&CHECKSUM=`; its text answer. */
async function sendPacket(
  gatewayUrl: string,
  path: string,
  secret: string,
  fields: Record<string, string>,
  timeoutMs: number,
) {
  const encoded = encodePacket(fields);
  const query = new URLSearchParams({ ENCODED: encoded, CHECKSUM: checksumOf(secret, encoded) });
  const answer = await get(`${gatewayUrl}${path}?${query}`, timeoutMs);
  return {
    ...answer,
    fields: parseTextAnswer(answer.body),
    replayed: answer.headers.get('idempotent-replayed') === 'true',
  };
}
type PacketAnswer = Awaited<ReturnType<typeof sendPacket>>;

/** An answer that is no success: a refusal (GatewayRefused) for a 4xx with ERR, else GatewayUnavailable. */
function failureOf(answer: PacketAnswer, what: string): Error {
  if (answer.status >= 400 && answer.status < 500 && answer.status !== 429 && answer.fields.ERR) {
    const { ERR, ERRMSG, FIELD } = answer.fields;
    return new GatewayRefused(
      ERR,
      `the collection gateway refused the ${what}: ${ERR}${ERRMSG ? ` (${ERRMSG})` : ''}`,
      FIELD,
    );
  }
  return new GatewayUnavailable(
    `the collection gateway answered ${answer.status}: ${answer.body.slice(0, 200)}`,
  );
}

/** Registers a cash payout (`office/send.cgi`, MoneySendOfficePayload; the default expiry applies). */
export async function registerCashPayout(
  gatewayUrl: string,
  order: CashPayoutOrder,
  timeoutMs: number,
): Promise<RegisteredPayout> {
  // No EXP_TIME: the packet is then the same whenever it is resent, so a retry is answered as a replay.
  const answer = await sendPacket(
    gatewayUrl,
    '/office/send.cgi',
    order.secret,
    {
      MIN: order.min,
      INVOICE: order.invoice,
      AMOUNT: order.amount,
      CURRENCY: order.currency,
      RCPT_NAME: order.recipientName,
      RCPT_ID: order.recipientId,
      DESCR: order.description.slice(0, 100),
      ENCODING: 'utf-8',
    },
    timeoutMs,
  );
  if (answer.status === 200 && answer.fields.IDN)
    return { idn: answer.fields.IDN, expTime: answer.fields.EXP_TIME ?? null, replayed: answer.replayed };
  if (answer.fields.ERR === 'DUPLICATE_INVOICE') return { idn: null, expTime: null, replayed: true };
  throw failureOf(answer, 'payout');
}

/** A payment lending asks of the gateway: an INVOICE of the merchant, its amount and description. */
export interface MerchantPayment extends MerchantCredentials {
  invoice: string;
  /** AMOUNT as the gateway takes it (`150.00`). */
  amount: string;
  currency: string;
  /** DESCR, at most 70 characters kept (what a bank transfer's reason shows). */
  description: string;
}

export interface RegisteredSlip {
  /** The IDN the payer quotes in the transfer's remittance information. */
  idn: string;
  /** When the slip expires (ISO), from the gateway's EXP_TIME. */
  expiresAt: string | null;
  /** The gateway's collection account, when it names it (decision 0045). */
  iban: string | null;
  beneficiary: string | null;
  replayed: boolean;
}

/**
 * Registers a deposit slip (`office/reg_vnbel.cgi`, DepositSlipPayload; the default expiry applies, so
 * the packet is the same on every retry and a retry is a replay). A repeated INVOICE with another packet
 * (`DUPLICATE_INVOICE`) is a refusal: its IDN is unknown to this call.
 */
export async function registerDepositSlip(
  gatewayUrl: string,
  payment: MerchantPayment,
  timeoutMs: number,
): Promise<RegisteredSlip> {
  const answer = await sendPacket(
    gatewayUrl,
    '/office/reg_vnbel.cgi',
    payment.secret,
    {
      MIN: payment.min,
      INVOICE: payment.invoice,
      AMOUNT: payment.amount,
      CURRENCY: payment.currency,
      DESCR: payment.description.slice(0, 70),
      ENCODING: 'utf-8',
    },
    timeoutMs,
  );
  const { IDN, EXP_TIME, IBAN, BENEFICIARY } = answer.fields;
  if (answer.status === 200 && IDN)
    return {
      idn: IDN,
      expiresAt: (EXP_TIME && expTimeInstant(EXP_TIME)) || null,
      iban: IBAN || null,
      beneficiary: BENEFICIARY || null,
      replayed: answer.replayed,
    };
  throw failureOf(answer, 'deposit slip');
}

/** What a charge of a saved card came to. */
export type CardChargeAnswer =
  | { outcome: 'paid'; idn: string | null; payTime: string | null; replayed: boolean }
  | { outcome: 'denied'; idn: string | null; reason: string; replayed: boolean }
  /** The INVOICE was charged before with another packet: its notification tells the outcome. */
  | { outcome: 'duplicate' };

/**
 * Charges a saved card (`card/charge.cgi`, CardChargePayload; merchant-initiated, decision 0045). Once
 * per INVOICE: the same packet again answers the first result. A decline is an answer (STATUS=DENIED);
 * so is `ERR=ACQUIRER_REFUSED` (nothing charged). `ERR=UNAVAILABLE` (the acquirer could not be asked)
 * and any other failure to answer is GatewayUnavailable (the same packet may be sent again); a refused
 * packet (e.g. `BAD_FIELD CARD_TOKEN`: the card is not saved any more) is GatewayRefused.
 */
export async function chargeSavedCard(
  gatewayUrl: string,
  payment: MerchantPayment & { cardToken: string },
  timeoutMs: number,
): Promise<CardChargeAnswer> {
  const answer = await sendPacket(
    gatewayUrl,
    '/card/charge.cgi',
    payment.secret,
    {
      MIN: payment.min,
      INVOICE: payment.invoice,
      AMOUNT: payment.amount,
      CURRENCY: payment.currency,
      DESCR: payment.description.slice(0, 100),
      CARD_TOKEN: payment.cardToken,
      ENCODING: 'utf-8',
    },
    timeoutMs,
  );
  const { STATUS, IDN, PAY_TIME, REASON, ERR } = answer.fields;
  if (answer.status === 200 && STATUS === 'PAID')
    return { outcome: 'paid', idn: IDN ?? null, payTime: PAY_TIME ?? null, replayed: answer.replayed };
  if (answer.status === 200 && STATUS === 'DENIED')
    return {
      outcome: 'denied',
      idn: IDN ?? null,
      reason: REASON || 'the card was declined',
      replayed: answer.replayed,
    };
  if (ERR === 'DUPLICATE_INVOICE') return { outcome: 'duplicate' };
  // The acquirer refused (nothing was charged): final, as a decline.
  if (ERR === 'ACQUIRER_REFUSED')
    return {
      outcome: 'denied',
      idn: IDN ?? null,
      reason: `the card acquirer refused the charge${answer.fields.ERRMSG ? ` (${answer.fields.ERRMSG})` : ''}`,
      replayed: answer.replayed,
    };
  throw failureOf(answer, 'card charge');
}

/** Forgets a saved card (`card/forget.cgi`): it can no longer be charged; an unknown token is forgotten already. */
export async function forgetSavedCard(
  gatewayUrl: string,
  merchant: MerchantCredentials,
  cardToken: string,
  timeoutMs: number,
): Promise<void> {
  const answer = await sendPacket(
    gatewayUrl,
    '/card/forget.cgi',
    merchant.secret,
    { MIN: merchant.min, CARD_TOKEN: cardToken },
    timeoutMs,
  );
  if (answer.status === 200 && answer.fields.STATUS === 'DELETED') return;
  if (answer.fields.ERR === 'BAD_FIELD' && answer.fields.FIELD === 'CARD_TOKEN') return;
  throw failureOf(answer, 'forgetting of the card');
}

/** The form the customer's browser posts to the gateway's card page (a signed packet). */
export interface CardPageForm {
  action: string;
  fields: Record<string, string>;
}

/**
 * The card page's form that saves a card (decision 0045): PAGE=credit_paydirect with a zero-amount
 * SAVECARD=1 packet (a verification that pays nothing), URL_OK and URL_CANCEL the front site's page.
 */
export function cardSavingForm(
  gatewayUrl: string,
  request: MerchantCredentials & { invoice: string; description: string; returnUrl?: string | undefined },
): CardPageForm {
  const encoded = encodePacket({
    MIN: request.min,
    INVOICE: request.invoice,
    AMOUNT: '0',
    SAVECARD: '1',
    DESCR: request.description.slice(0, 100),
    ...(request.returnUrl ? { URL_OK: request.returnUrl, URL_CANCEL: request.returnUrl } : {}),
    ENCODING: 'utf-8',
  });
  return {
    action: `${gatewayUrl}/`,
    fields: { PAGE: 'credit_paydirect', ENCODED: encoded, CHECKSUM: checksumOf(request.secret, encoded) },
  };
}

/** The gateway's notification key (SPKI PEM), as published. */
export async function fetchNotificationKey(gatewayUrl: string, timeoutMs: number): Promise<string> {
  const answer = await get(`${gatewayUrl}/.well-known/notification-key.pem`, timeoutMs);
  if (answer.status !== 200 || !answer.body.includes('PUBLIC KEY'))
    throw new GatewayUnavailable(`the collection gateway's notification key: ${answer.status}`);
  return answer.body;
}
