/**
 * The card acquirer: who authorises, captures, voids and refunds card payments for the hosted card
 * page (online payments) and pre-authorisation holds. One interface, one HTTP implementation used in
 * every mode: in sandbox mode it talks to the sandbox acquirer (sandbox/collect/acquirer.ts), in
 * production to the acquirer named by COLLECT_ACQUIRER_URL (a sandbox acquirer named explicitly too).
 * Protocol: docs/collect.md, "Card acquirer"; decision 0032.
 *
 *   POST /v1/authorisations                 authorise (hold) an amount on a card; may need 3-D Secure
 *   GET  /v1/authorisations/{id}            where an authorisation stands (after the 3-D Secure page)
 *   POST /v1/authorisations/{id}/capture    take up to the authorised amount (once; the rest is released)
 *   POST /v1/authorisations/{id}/void       release an authorisation nothing was captured of
 *   POST /v1/authorisations/{id}/refund     give back up to the captured amount
 *
 * Every request carries `X-Api-Key`; every writing request an `Idempotency-Key` (the gateway uses
 * `<IDN>:<operation>`): the same key with the same body answers the first answer again and changes
 * nothing, so a retried activity or a crashed worker can never capture, void or refund twice.
 *
 * Stored cards (decision 0045): an authorisation with `storeCard: true` answers, once approved (after
 * its 3-D Secure challenge if one is needed), the acquirer's `cardToken` and the `card` it stands for;
 * with `storeCard` the amount may be 0 (a card verification: authorised, holding nothing; void it). An
 * authorisation by `cardToken` (instead of `card`) with `merchantInitiated: true` charges a stored card
 * without the cardholder (exempt from 3-D Secure).
 */

export type AuthorisationStatus =
  /** The cardholder must pass a 3-D Secure challenge at `challengeUrl` first. */
  | 'challenge_required'
  /** The amount is held on the card: capture or void it. */
  | 'authorised'
  | 'declined'
  | 'captured'
  | 'voided';

export interface Authorisation {
  id: string;
  /** The gateway's reference: the obligation's IDN. */
  reference: string;
  status: AuthorisationStatus;
  /** The authorised (held) amount, minor units. */
  amountMinor: number;
  currency: string;
  capturedMinor: number;
  refundedMinor: number;
  /** System trace audit number of the authorisation (6 digits); absent until authorised. */
  stan?: string | undefined;
  /** The issuer's approval code (6 characters): the BCODE merchants receive. */
  approvalCode?: string | undefined;
  declineReason?: string | undefined;
  /** The hosted 3-D Secure page the cardholder's browser is sent to (status challenge_required). */
  challengeUrl?: string | undefined;
  /** The capture, once made: its own STAN. */
  capture?: { stan: string; amountMinor: number } | undefined;
  cardLast4: string;
  /** `storeCard` or a stored card's authorisation, once approved: the acquirer's token of the card. */
  cardToken?: string | undefined;
  /** What the token stands for (with `cardToken`). */
  card?: StoredCard | undefined;
  /** Authorised by a stored card without the cardholder (`merchantInitiated`). */
  merchantInitiated?: boolean | undefined;
}

/** A stored card as the acquirer describes it. */
export interface StoredCard {
  /** Lower case card scheme: visa, mastercard, amex, discover, jcb, unknown. */
  brand: string;
  last4: string;
  expiryMonth: number;
  expiryYear: number;
}

interface AuthorisationTerms {
  reference: string;
  /** Positive; 0 only with `storeCard` (a card verification). */
  amountMinor: number;
  currency: string;
}

/** The cardholder's card, typed on the card page; `storeCard` keeps it at the acquirer once approved. */
export interface CardAuthorisationRequest extends AuthorisationTerms {
  card: { number: string; expiryMonth: number; expiryYear: number; cvv: string; holder?: string };
  storeCard?: boolean | undefined;
  /** Where the acquirer sends the cardholder's browser after a 3-D Secure challenge (`?authorisation=<id>` added). */
  returnUrl: string;
}

/** A stored card charged by the merchant without the cardholder (no 3-D Secure challenge). */
export interface StoredCardAuthorisationRequest extends AuthorisationTerms {
  cardToken: string;
  merchantInitiated: true;
}

export type AuthorisationRequest = CardAuthorisationRequest | StoredCardAuthorisationRequest;

/** Error codes of the acquirer protocol (body `{ "error": { "code", "message" } }`). */
export type AcquirerErrorCode =
  | 'unauthorised'
  | 'bad_request'
  | 'not_found'
  /** The cardToken of an authorisation is not a card stored with this acquirer. */
  | 'unknown_card_token'
  | 'idempotency_conflict'
  | 'invalid_state'
  | 'amount_exceeds_authorisation'
  | 'amount_exceeds_captured'
  | 'currency_mismatch'
  | 'unavailable';

/** The acquirer refused a request (4xx): retrying the same request cannot help. */
export class AcquirerRefusal extends Error {
  constructor(
    readonly code: AcquirerErrorCode,
    message: string,
    readonly httpStatus: number,
  ) {
    super(message);
    this.name = 'AcquirerRefusal';
  }
}

/** The acquirer could not be reached or failed (network, 5xx, timeout): the same request may be retried. */
export class AcquirerUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AcquirerUnavailable';
  }
}

export interface CardAcquirer {
  /** Names the acquirer in settlements and the ledger (COLLECT_ACQUIRER_ID). */
  readonly id: string;
  authorise(request: AuthorisationRequest, idempotencyKey: string): Promise<Authorisation>;
  get(authorisationId: string): Promise<Authorisation>;
  capture(authorisationId: string, amountMinor: number, idempotencyKey: string): Promise<Authorisation>;
  void(authorisationId: string, idempotencyKey: string): Promise<Authorisation>;
  refund(authorisationId: string, amountMinor: number, idempotencyKey: string): Promise<Authorisation>;
}

export interface HttpAcquirerOptions {
  id: string;
  url: string;
  apiKey: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** The acquirer over HTTP (every mode). */
export function createHttpAcquirer(options: HttpAcquirerOptions): CardAcquirer {
  const base = options.url.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 15_000;

  async function call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    idempotencyKey?: string,
  ): Promise<Authorisation> {
    let response: Response;
    try {
      response = await doFetch(`${base}${path}`, {
        method,
        headers: {
          'x-api-key': options.apiKey,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new AcquirerUnavailable(`acquirer unreachable: ${(error as Error).message}`);
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (response.ok && parsed && typeof parsed === 'object' && 'id' in parsed) return parsed as Authorisation;
    if (response.status >= 400 && response.status < 500 && response.status !== 429) {
      const error = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
      throw new AcquirerRefusal(
        (error?.code ?? 'bad_request') as AcquirerErrorCode,
        error?.message ?? `acquirer answered ${response.status}`,
        response.status,
      );
    }
    throw new AcquirerUnavailable(`acquirer answered ${response.status}: ${text.slice(0, 200)}`);
  }

  const id = (authorisationId: string) => `/v1/authorisations/${encodeURIComponent(authorisationId)}`;
  return {
    id: options.id,
    authorise: (request, key) => call('POST', '/v1/authorisations', request, key),
    get: (authorisationId) => call('GET', id(authorisationId)),
    capture: (authorisationId, amountMinor, key) =>
      call('POST', `${id(authorisationId)}/capture`, { amountMinor }, key),
    void: (authorisationId, key) => call('POST', `${id(authorisationId)}/void`, {}, key),
    refund: (authorisationId, amountMinor, key) =>
      call('POST', `${id(authorisationId)}/refund`, { amountMinor }, key),
  };
}

/**
 * The acquirer this process is configured with: COLLECT_ACQUIRER_URL, else (sandbox mode: production
 * refuses to start without it, platform/config.ts) the sandbox acquirer on this machine.
 */
export function acquirerFor(config: {
  COLLECT_ACQUIRER_ID: string;
  COLLECT_ACQUIRER_URL?: string | undefined;
  COLLECT_ACQUIRER_API_KEY: string;
  COLLECT_ACQUIRER_REQUEST_TIMEOUT: number;
  SANDBOX_ACQUIRER_PORT: number;
}): CardAcquirer {
  return createHttpAcquirer({
    id: config.COLLECT_ACQUIRER_ID,
    url: config.COLLECT_ACQUIRER_URL ?? `http://127.0.0.1:${config.SANDBOX_ACQUIRER_PORT}`,
    apiKey: config.COLLECT_ACQUIRER_API_KEY,
    timeoutMs: config.COLLECT_ACQUIRER_REQUEST_TIMEOUT,
  });
}

/** Idempotency key of an operation on an obligation's card: one per IDN and operation. */
export const acquirerIdempotencyKey = (
  idn: string,
  operation: 'authorise' | 'capture' | 'void' | 'refund',
): string => `${idn}:${operation}`;
