import { checksumOf, encodePacket, parseTextAnswer } from '../../domain/epay-merchant.ts';

/**
 * The payment-collection gateway as the lending platform's merchant client sees it (decision 0041):
 * only its public merchant interface over HTTP, exactly as a third-party merchant's ePay client calls
 * it (docs/collect.md): `GET <gateway>/office/send.cgi?ENCODED=&CHECKSUM=` registers a cash payout, and
 * `GET <gateway>/.well-known/notification-key.pem` publishes the key its notifications are signed with.
 * No module of the collect service is imported: lending is an outsider there.
 */

export interface CashPayoutOrder {
  min: string;
  secret: string;
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

/** The gateway refused the order (a 4xx protocol error other than a repeated INVOICE): asking again cannot help. */
export class PayoutRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'PayoutRefused';
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

/** Registers a cash payout (`office/send.cgi`, MoneySendOfficePayload; the default expiry applies). */
export async function registerCashPayout(
  gatewayUrl: string,
  order: CashPayoutOrder,
  timeoutMs: number,
): Promise<RegisteredPayout> {
  // No EXP_TIME: the packet is then the same whenever it is resent, so a retry is answered as a replay.
  const encoded = encodePacket({
    MIN: order.min,
    INVOICE: order.invoice,
    AMOUNT: order.amount,
    CURRENCY: order.currency,
    RCPT_NAME: order.recipientName,
    RCPT_ID: order.recipientId,
    DESCR: order.description.slice(0, 100),
    ENCODING: 'utf-8',
  });
  const query = new URLSearchParams({ ENCODED: encoded, CHECKSUM: checksumOf(order.secret, encoded) });
  const answer = await get(`${gatewayUrl}/office/send.cgi?${query}`, timeoutMs);
  const fields = parseTextAnswer(answer.body);
  if (answer.status === 200 && fields.IDN) {
    return {
      idn: fields.IDN,
      expTime: fields.EXP_TIME ?? null,
      replayed: answer.headers.get('idempotent-replayed') === 'true',
    };
  }
  if (fields.ERR === 'DUPLICATE_INVOICE') return { idn: null, expTime: null, replayed: true };
  if (answer.status >= 400 && answer.status < 500 && answer.status !== 429 && fields.ERR) {
    throw new PayoutRefused(
      fields.ERR,
      `the collection gateway refused the payout: ${fields.ERR}${fields.ERRMSG ? ` (${fields.ERRMSG})` : ''}`,
      fields.FIELD,
    );
  }
  throw new GatewayUnavailable(
    `the collection gateway answered ${answer.status}: ${answer.body.slice(0, 200)}`,
  );
}

/** The gateway's notification key (SPKI PEM), as published. */
export async function fetchNotificationKey(gatewayUrl: string, timeoutMs: number): Promise<string> {
  const answer = await get(`${gatewayUrl}/.well-known/notification-key.pem`, timeoutMs);
  if (answer.status !== 200 || !answer.body.includes('PUBLIC KEY'))
    throw new GatewayUnavailable(`the collection gateway's notification key: ${answer.status}`);
  return answer.body;
}
