import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { type RequestSigner, tppSignerOf } from '../../credentials/openbanking/tpp-signing.ts';
import type { BankBulkEntry } from '../../domain/openbanking/bulk-payments.ts';
import { isTransactionStatus, type TransactionStatus } from '../../domain/openbanking/payments.ts';
import {
  type AccountDetails,
  type AccountReference,
  type AuthenticationObject,
  type Balance,
  type BankTokens,
  type BookingStatus,
  type ChallengeData,
  CONSENT_STATUSES,
  type ConsentAccess,
  type ConsentRequest,
  type ConsentStatus,
  type EmbeddedScaInput,
  type EmbeddedScaStep,
  type MaintenanceNotice,
  type OAuthScaPending,
  type PaymentInitiationRequest,
  type PaymentProduct,
  type PsuPresence,
  SCA_STATUSES,
  type ScaApproach,
  type ScaStatus,
  type TppMessage,
  type Transaction,
  type Xs2aErrorDetails,
  Xs2aErrorType,
} from '../../domain/openbanking/xs2a.ts';
import type { Config } from '../../platform/config.ts';

export type { RequestSigner };

/**
 * The bank connector: a typed client of the Berlin Group NextGenPSD2 XS2A 1.3 subset the platform
 * uses (the same code talks to the sandbox banks and to a real bank's XS2A interface). One client per
 * bank: `xs2aClientFor(bank, config)` (or `createXs2aClient({ baseUrl: bank.xs2aBaseUrl, requestTimeoutMs })`),
 * then call it from activities (and the API's paged reads).
 *
 * Every failure is an `ApplicationFailure` whose `type` is one of `Xs2aErrorType`
 * (domain/openbanking/xs2a.ts, importable from workflow code) with `Xs2aErrorDetails` as details[0]:
 * consent invalid/expired/unknown, ACCESS_EXCEEDED (429), format errors and unknown resources are
 * non-retryable; 503 SERVICE_UNAVAILABLE (maintenance; honouring Retry-After), other 5xx, timeouts and
 * network errors are retryable (`Xs2aBankUnavailable`), so an activity's retry policy handles them.
 *
 * "Without the PSU present" is the default: reads then count against the consent's frequencyPerDay.
 * Pass `psu: { ipAddress }` only while the user is actually at the keyboard.
 */

export interface Xs2aClientOptions {
  /** The bank's XS2A base URL; paths `/v1/...` are appended (e.g. http://127.0.0.1:4020/bank-a). */
  baseUrl: string;
  /** Per HTTP request (OPENBANKING_BANK_REQUEST_TIMEOUT). */
  requestTimeoutMs: number;
  fetch?: typeof fetch;
  /** Guard for listTransactions following `_links.next` (default 1,000 pages). */
  maxPages?: number;
  /**
   * The TPP's identity on every request (Berlin Group signing: Digest, Signature,
   * TPP-Signature-Certificate): given the request, answers the headers to add.
   */
  signer?: RequestSigner;
  /**
   * OAuth2 as SCA approach (decision 0067): the consent's access token at the bank, sent as
   * `Authorization: Bearer` with the account-information reads.
   */
  accessToken?: string;
  /**
   * OAuth2 SCA: a new access token when the bank answers a read 401 `TOKEN_EXPIRED` (the read is sent
   * again once with it); absent, that answer is Xs2aConsentInvalid.
   */
  renewAccessToken?: () => Promise<string>;
  /** Our client_id at the banks' authorisation servers (OPENBANKING_TPP_CLIENT_ID). */
  oauthClientId?: string;
}

export interface InitiatedPayment {
  paymentId: string;
  transactionStatus: TransactionStatus;
  /** REDIRECT: the bank's SCA page (absolute URL). */
  scaRedirectUrl: string | null;
  /** The authorisation the bank started implicitly (REDIRECT), when it says so. */
  authorisationId: string | null;
  /** The bank's SCA approach (ASPSP-SCA-Approach). */
  approach: ScaApproach | null;
}

export interface PaymentAuthorisation {
  authorisationId: string;
  scaStatus: ScaStatus;
  chosenScaMethod: AuthenticationObject | null;
  challengeData: ChallengeData | null;
  /** Text for the PSU (decoupled: "confirm in your banking app"). */
  psuMessage: string | null;
  scaRedirectUrl: string | null;
  /** The bank's link to the authorisation's status (absolute URL), when it gave one. */
  scaStatusUrl: string | null;
}

/** Where a payment's SCA returns the PSU (REDIRECT) and which approach the TPP prefers. */
export interface PaymentScaOptions {
  approach: ScaApproach;
  redirectUri?: string;
  nokRedirectUri?: string;
  psu?: PsuPresence;
}

export interface CreatedConsent {
  consentId: string;
  consentStatus: ConsentStatus;
  /** Where to send the PSU's browser for SCA (absolute URL): OAuth2, the authorisation request. */
  scaRedirectUrl: string;
  /**
   * OAuth2 as SCA approach (the answer carried `_links.scaOAuth`): what the token request needs once the
   * callback brings the code (the code_verifier is a secret: keep it sealed).
   */
  oauth?: OAuthScaPending;
}

/** A consent whose SCA the bank runs in its own app (decoupled approach). */
export interface CreatedDecoupledConsent {
  consentId: string;
  consentStatus: ConsentStatus;
  /** What the bank tells the PSU ("approve in the app"). */
  psuMessage: string | null;
}

/** A consent whose SCA the TPP relays (embedded approach). */
export interface CreatedEmbeddedConsent {
  consentId: string;
  consentStatus: ConsentStatus;
  /** The bank's `startAuthorisationWithPsuAuthentication` (or `startAuthorisation`) link, absolute. */
  startAuthorisationUrl: string;
}

export interface ConsentInformation {
  consentId: string;
  consentStatus: ConsentStatus;
  access: ConsentAccess;
  recurringIndicator: boolean;
  validUntil: string;
  frequencyPerDay: number;
  lastActionDate: string | null;
}

export interface TransactionQuery {
  /** YYYY-MM-DD */
  dateFrom?: string;
  dateTo?: string;
  /** Default both. */
  bookingStatus?: BookingStatus;
}

export interface TransactionPage {
  account: AccountReference;
  booked: Transaction[];
  pending: Transaction[];
  /** Absolute URL of the bank's next page (pass it back as `nextPageUrl`), null on the last page. */
  nextPageUrl: string | null;
}

export interface TransactionReport {
  account: AccountReference;
  booked: Transaction[];
  pending: Transaction[];
  /** How many pages the bank answered in. */
  pages: number;
}

export interface Xs2aClient {
  readonly baseUrl: string;
  /** POST /v1/consents (redirect approach): the consent id and the SCA page to send the PSU to. */
  createConsent(
    request: ConsentRequest,
    redirect: { redirectUri: string; nokRedirectUri?: string },
    psu?: PsuPresence,
  ): Promise<CreatedConsent>;
  /**
   * POST /v1/consents (decoupled approach, PSU-ID): the bank asks the PSU in its app (the authorisation
   * starts implicitly); read the consent's status until it leaves `received`.
   */
  createDecoupledConsent(
    request: ConsentRequest,
    psuId: string,
    psu?: PsuPresence,
  ): Promise<CreatedDecoupledConsent>;
  /**
   * POST /v1/consents (embedded approach, TPP-Redirect-Preferred false): the consent and the bank's
   * link to start its authorisation with the PSU's credentials (`startAuthorisationWithPsuAuthentication`).
   */
  createEmbeddedConsent(request: ConsentRequest, psu?: PsuPresence): Promise<CreatedEmbeddedConsent>;
  /**
   * One step of a consent's embedded SCA (decision 0061), on the link the bank gave for it: the PSU's
   * credentials (POST the start link with PSU-ID and psuData.password), the chosen method (PUT
   * selectAuthenticationMethod) or the one-time code (PUT authoriseTransaction).
   */
  embeddedConsentStep(
    consentId: string,
    href: string,
    input: EmbeddedScaInput,
    psu?: PsuPresence,
  ): Promise<EmbeddedScaStep>;
  /**
   * OAuth2 SCA (decision 0067): the authorization code the callback brought, exchanged at the bank's
   * token endpoint with the PKCE code_verifier. A refused code or verifier is Xs2aConsentInvalid.
   */
  exchangeAuthorisationCode(pending: OAuthScaPending, code: string): Promise<BankTokens>;
  /** OAuth2 SCA: a new access token for the refresh token (refused: Xs2aConsentInvalid, a new SCA is needed). */
  refreshAccessToken(tokenEndpoint: string, clientId: string, refreshToken: string): Promise<BankTokens>;
  /** GET /v1/consents/{id} */
  getConsent(consentId: string): Promise<ConsentInformation>;
  /** GET /v1/consents/{id}/status */
  getConsentStatus(consentId: string): Promise<ConsentStatus>;
  /** DELETE /v1/consents/{id}: the TPP ends the consent (terminatedByTpp). */
  deleteConsent(consentId: string): Promise<void>;
  /** GET /v1/accounts (with the balances when `withBalance` and the consent covers them). */
  listAccounts(
    consentId: string,
    options?: { withBalance?: boolean; psu?: PsuPresence },
  ): Promise<AccountDetails[]>;
  /** GET /v1/accounts/{id}/balances */
  getBalances(
    consentId: string,
    accountId: string,
    psu?: PsuPresence,
  ): Promise<{ account: AccountReference; balances: Balance[] }>;
  /** GET /v1/accounts/{id}/transactions, following `_links.next` until the last page. */
  listTransactions(
    consentId: string,
    accountId: string,
    query?: TransactionQuery,
    psu?: PsuPresence,
  ): Promise<TransactionReport>;
  /**
   * One page: the first page of `query`, or the page at `nextPageUrl` (which must be a URL of this
   * bank's transactions of this account; anything else is refused as Xs2aFormatError).
   */
  listTransactionsPage(
    consentId: string,
    accountId: string,
    page: TransactionQuery | { nextPageUrl: string },
    psu?: PsuPresence,
  ): Promise<TransactionPage>;
  /** GET /v1/accounts/{id}/transactions/{transactionId} */
  getTransaction(
    consentId: string,
    accountId: string,
    transactionId: string,
    psu?: PsuPresence,
  ): Promise<Transaction>;
  /** GET /v1/maintenance (ASPSP-specific): current and announced maintenance windows. */
  getMaintenanceNotices(): Promise<MaintenanceNotice[]>;

  // ─── Payment initiation (PIS) ───
  /** POST /v1/payments/{product}: the bank records the payment (RCVD) and says how SCA goes. */
  initiatePayment(
    product: PaymentProduct,
    request: PaymentInitiationRequest,
    sca: PaymentScaOptions,
  ): Promise<InitiatedPayment>;
  /** GET /v1/payments/{product}/{paymentId}/status */
  getPaymentStatus(product: PaymentProduct, paymentId: string): Promise<TransactionStatus>;
  /** POST /v1/payments/{product}/{paymentId}/authorisations: starts the SCA (embedded: the bank sends its code). */
  startPaymentAuthorisation(
    product: PaymentProduct,
    paymentId: string,
    psu?: PsuPresence,
  ): Promise<PaymentAuthorisation>;
  /** PUT /v1/payments/{product}/{paymentId}/authorisations/{id} with `scaAuthenticationData` (the one-time code). */
  updatePaymentAuthorisation(
    product: PaymentProduct,
    paymentId: string,
    authorisationId: string,
    scaAuthenticationData: string,
    psu?: PsuPresence,
  ): Promise<ScaStatus>;
  /** GET /v1/payments/{product}/{paymentId}/authorisations/{id}: how the SCA stands (decoupled polling). */
  getPaymentAuthorisationStatus(
    product: PaymentProduct,
    paymentId: string,
    authorisationId: string,
  ): Promise<ScaStatus>;

  /**
   * DELETE /v1/payments/{product}/{paymentId} (decision 0061): `cancelled` when the bank cancelled it at
   * once (204); when the bank wants the PSU to authorise the cancellation (202 with `startAuthorisation`),
   * the client starts that authorisation on the bank's link and answers its SCA page (redirect). A
   * payment past cancelling is Xs2aStatusInvalid (405 CANCELLATION_INVALID).
   */
  cancelPayment(
    product: PaymentProduct,
    paymentId: string,
    sca: { redirectUri: string; nokRedirectUri?: string; psu?: PsuPresence },
  ): Promise<PaymentCancellation>;
  /** GET the cancellation authorisation's status, on the `scaStatus` link the bank gave. */
  getCancellationAuthorisationStatus(
    product: PaymentProduct,
    paymentId: string,
    scaStatusUrl: string,
  ): Promise<ScaStatus>;

  // ─── Bulk payments ───
  /** POST /v1/bulk-payments/{product} (redirect approach): the bank bulk (RCVD) and its SCA page. */
  initiateBulkPayment(
    product: PaymentProduct,
    request: BulkPaymentInitiationRequest,
    sca: { redirectUri: string; nokRedirectUri?: string; psu?: PsuPresence },
  ): Promise<InitiatedBulkPayment>;
  /** GET /v1/bulk-payments/{product}/{paymentId}/status */
  getBulkPaymentStatus(product: PaymentProduct, paymentId: string): Promise<TransactionStatus>;
  /** DELETE /v1/bulk-payments/{product}/{paymentId}: cancels a bulk the PSU has not authorised (else StatusInvalid). */
  cancelBulkPayment(product: PaymentProduct, paymentId: string): Promise<void>;
  /**
   * GET /v1/bulk-payments/{product}/{paymentId}?offset=&limit=: a page of the entries with each one's
   * transactionStatus (ASPSP-specific: Berlin Group 1.3 leaves per-entry statuses to the bank).
   */
  getBulkPaymentEntries(
    product: PaymentProduct,
    paymentId: string,
    page: { offset: number; limit: number },
  ): Promise<BankBulkEntry[]>;
}

/** What a payment's cancellation came to at the bank. */
export type PaymentCancellation =
  | { status: 'cancelled' }
  | {
      status: 'authorisationNeeded';
      authorisationId: string;
      /** The bank's page where the PSU approves the cancellation (absolute URL). */
      scaRedirectUrl: string;
      /** The bank's link to read the cancellation authorisation's status (absolute URL). */
      scaStatusUrl: string | null;
    };

/** The body of POST /v1/bulk-payments/{product}. */
export interface BulkPaymentInitiationRequest {
  /** Our bulk's id: a bank answers a repeated initiation with the same id with the same bulk. */
  paymentInformationId: string;
  batchBookingPreferred: boolean;
  debtorAccount: AccountReference;
  payments: (Omit<PaymentInitiationRequest, 'debtorAccount' | 'endToEndIdentification'> & {
    endToEndIdentification: string;
  })[];
}

export interface InitiatedBulkPayment {
  paymentId: string;
  transactionStatus: TransactionStatus;
  /** The bank's SCA page for the whole bulk (absolute URL). */
  scaRedirectUrl: string;
}

const NON_RETRYABLE_BY_CODE: Record<string, Xs2aErrorType> = {
  CONSENT_INVALID: Xs2aErrorType.ConsentInvalid,
  CONSENT_EXPIRED: Xs2aErrorType.ConsentExpired,
  CONSENT_UNKNOWN: Xs2aErrorType.ConsentUnknown,
  ACCESS_EXCEEDED: Xs2aErrorType.AccessExceeded,
  FORMAT_ERROR: Xs2aErrorType.FormatError,
  RESOURCE_UNKNOWN: Xs2aErrorType.ResourceUnknown,
  PSU_CREDENTIALS_INVALID: Xs2aErrorType.ScaCredentialsInvalid,
  RESOURCE_EXPIRED: Xs2aErrorType.ScaExpired,
  STATUS_INVALID: Xs2aErrorType.StatusInvalid,
  // OAuth2 SCA (decision 0067): the reads' bearer token is missing, wrong or expired.
  TOKEN_INVALID: Xs2aErrorType.ConsentInvalid,
  TOKEN_EXPIRED: Xs2aErrorType.ConsentInvalid,
  // 405: the payment is past cancelling (executed, rejected, already cancelled).
  CANCELLATION_INVALID: Xs2aErrorType.StatusInvalid,
  PAYMENT_FAILED: Xs2aErrorType.PaymentFailed,
  PRODUCT_UNKNOWN: Xs2aErrorType.FormatError,
  SIGNATURE_MISSING: Xs2aErrorType.SignatureInvalid,
  SIGNATURE_INVALID: Xs2aErrorType.SignatureInvalid,
  CERTIFICATE_INVALID: Xs2aErrorType.SignatureInvalid,
};

/** Our client_id at a bank's authorisation server when OPENBANKING_TPP_CLIENT_ID is not set. */
export const DEFAULT_OAUTH_CLIENT_ID = 'integration-platform';

function failure(type: Xs2aErrorType, message: string, details: Xs2aErrorDetails): ApplicationFailure {
  const retryable = type === Xs2aErrorType.BankUnavailable;
  return ApplicationFailure.create({
    type,
    message,
    nonRetryable: !retryable,
    details: [details],
    // A bank in a maintenance window says when it is back; do not retry before then.
    ...(retryable && details.retryAfterSeconds ? { nextRetryDelay: details.retryAfterSeconds * 1000 } : {}),
  });
}

/** The connector failure type of an error (also through an ActivityFailure's cause), if it is one. */
export function xs2aErrorTypeOf(error: unknown): Xs2aErrorType | undefined {
  let current: unknown = error;
  while (current instanceof Error) {
    if (
      current instanceof ApplicationFailure &&
      Object.values(Xs2aErrorType).includes(current.type as Xs2aErrorType)
    )
      return current.type as Xs2aErrorType;
    current = current.cause;
  }
  return undefined;
}

function retryAfterSeconds(response: Response): number | null {
  const header = response.headers.get('retry-after');
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** Maps a non-2xx answer to the connector's failure types. */
async function errorOf(response: Response, what: string): Promise<ApplicationFailure> {
  const text = await response.text().catch(() => '');
  let message: TppMessage | undefined;
  try {
    // The schema's tppMessages may mix WARNING and ERROR entries: the error is what the answer means.
    const messages = (JSON.parse(text) as { tppMessages?: TppMessage[] }).tppMessages;
    message = messages?.find((each) => each.category === 'ERROR') ?? messages?.[0];
  } catch {
    // not a Berlin Group body
  }
  const details: Xs2aErrorDetails = {
    status: response.status,
    code: message?.code ?? null,
    text: message?.text ?? (text.slice(0, 200) || null),
    retryAfterSeconds: retryAfterSeconds(response),
  };
  const summary = `${what}: bank answered ${response.status}${details.code ? ` ${details.code}` : ''}${details.text ? ` (${details.text})` : ''}`;
  if (response.status >= 500 || response.status === 408)
    return failure(Xs2aErrorType.BankUnavailable, summary, details);
  const byCode = details.code ? NON_RETRYABLE_BY_CODE[details.code] : undefined;
  if (byCode) return failure(byCode, summary, details);
  if (response.status === 429) return failure(Xs2aErrorType.AccessExceeded, summary, details);
  if (response.status === 401) return failure(Xs2aErrorType.ConsentInvalid, summary, details);
  if (response.status === 404) return failure(Xs2aErrorType.ResourceUnknown, summary, details);
  return failure(Xs2aErrorType.FormatError, summary, details);
}

const protocolError = (what: string, problem: string) =>
  failure(Xs2aErrorType.ProtocolError, `${what}: ${problem}`, {
    status: null,
    code: null,
    text: problem,
    retryAfterSeconds: null,
  });

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isScaStatus = (value: unknown): value is ScaStatus =>
  typeof value === 'string' && (SCA_STATUSES as readonly string[]).includes(value);

const isConsentStatus = (value: unknown): value is ConsentStatus =>
  typeof value === 'string' && (CONSENT_STATUSES as readonly string[]).includes(value);

const hrefOf = (links: unknown, name: string): string | undefined => {
  const link = isObject(links) ? links[name] : undefined;
  if (typeof link === 'string') return link;
  return isObject(link) && typeof link.href === 'string' ? link.href : undefined;
};

export function createXs2aClient(options: Xs2aClientOptions): Xs2aClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const base = new URL(baseUrl);
  const doFetch = options.fetch ?? fetch;
  const maxPages = options.maxPages ?? 1000;
  /** OAuth2 SCA: the consent's current access token (renewed on TOKEN_EXPIRED). */
  let accessToken = options.accessToken;

  const psuHeaders = (psu?: PsuPresence): Record<string, string> =>
    psu
      ? { 'PSU-IP-Address': psu.ipAddress, ...(psu.userAgent ? { 'PSU-User-Agent': psu.userAgent } : {}) }
      : {};

  /** One XS2A call: a fresh X-Request-ID, the timeout, errors mapped; the parsed JSON body (or null for 204). */
  async function call(
    what: string,
    method: string,
    url: string,
    headers: Record<string, string>,
    body?: unknown,
  ): Promise<Record<string, unknown> | null> {
    return (await exchange(what, method, url, headers, body)).body;
  }

  /** As call(), with the answer's headers. */
  async function exchange(
    what: string,
    method: string,
    url: string,
    headers: Record<string, string>,
    body?: unknown,
    renewed = false,
  ): Promise<{ body: Record<string, unknown> | null; headers: Headers }> {
    let response: Response;
    const payload = body !== undefined ? JSON.stringify(body) : undefined;
    const requestHeaders: Record<string, string> = {
      accept: 'application/json',
      'X-Request-ID': randomUUID(),
      ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    };
    try {
      response = await doFetch(url, {
        method,
        headers: {
          ...requestHeaders,
          ...(options.signer?.({ method, url, headers: requestHeaders, body: payload }) ?? {}),
        },
        ...(payload !== undefined ? { body: payload } : {}),
        signal: AbortSignal.timeout(options.requestTimeoutMs),
        redirect: 'manual',
      });
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      const problem = timedOut ? `no answer within ${options.requestTimeoutMs} ms` : (error as Error).message;
      throw failure(Xs2aErrorType.BankUnavailable, `${what}: ${problem}`, {
        status: null,
        code: null,
        text: problem,
        retryAfterSeconds: null,
      });
    }
    if (!response.ok) {
      const refused = await errorOf(response, what);
      // OAuth2 SCA: the bank ended the access token before we expected; renewed, the read goes again once.
      const code = (refused.details?.[0] as Xs2aErrorDetails | undefined)?.code;
      if (code === 'TOKEN_EXPIRED' && headers.Authorization && options.renewAccessToken && !renewed) {
        accessToken = await options.renewAccessToken();
        return exchange(
          what,
          method,
          url,
          { ...headers, Authorization: `Bearer ${accessToken}` },
          body,
          true,
        );
      }
      throw refused;
    }
    if (response.status === 204) return { body: null, headers: response.headers };
    const parsed: unknown = await response.json().catch(() => undefined);
    if (!isObject(parsed)) throw protocolError(what, `the ${response.status} answer is not a JSON object`);
    return { body: parsed, headers: response.headers };
  }

  const url = (path: string, query?: Record<string, string | undefined>) => {
    const target = new URL(`${baseUrl}${path}`);
    for (const [name, value] of Object.entries(query ?? {}))
      if (value !== undefined) target.searchParams.set(name, value);
    return target.toString();
  };
  const consentHeaders = (consentId: string, psu?: PsuPresence) => ({
    'Consent-ID': consentId,
    ...(accessToken ? { Authorization: `Bearer ${accessToken}` } : {}),
    ...psuHeaders(psu),
  });

  /** A link of the bank's OAuth2 authorisation server the TPP itself calls: on the bank's origin only. */
  function onBankOrigin(what: string, href: string): string {
    let target: URL;
    try {
      target = new URL(href, `${base.origin}/`);
    } catch {
      throw protocolError(what, `the link ${href} is not a URL`);
    }
    if (target.origin !== base.origin) throw protocolError(what, `the link ${href} leaves the bank`);
    return target.toString();
  }

  /**
   * One request to the bank's OAuth2 authorisation server (RFC 8414 metadata, RFC 6749 token endpoint):
   * the timeout, no redirects followed; an OAuth error answer (`invalid_grant`, …) is Xs2aConsentInvalid.
   */
  async function oauthRequest(
    what: string,
    target: string,
    form?: Record<string, string>,
  ): Promise<Record<string, unknown>> {
    let response: Response;
    try {
      response = await doFetch(target, {
        method: form ? 'POST' : 'GET',
        headers: {
          accept: 'application/json',
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
        signal: AbortSignal.timeout(options.requestTimeoutMs),
        redirect: 'manual',
      });
    } catch (error) {
      const problem = (error as Error).message;
      throw failure(Xs2aErrorType.BankUnavailable, `${what}: ${problem}`, {
        status: null,
        code: null,
        text: problem,
        retryAfterSeconds: null,
      });
    }
    const parsed: unknown = await response.json().catch(() => undefined);
    if (response.ok && isObject(parsed)) return parsed;
    if (response.ok) throw protocolError(what, `the ${response.status} answer is not a JSON object`);
    const code = isObject(parsed) && typeof parsed.error === 'string' ? parsed.error.slice(0, 64) : null;
    const details: Xs2aErrorDetails = {
      status: response.status,
      code,
      text:
        isObject(parsed) && typeof parsed.error_description === 'string'
          ? parsed.error_description.slice(0, 200)
          : null,
      retryAfterSeconds: retryAfterSeconds(response),
    };
    const summary = `${what}: bank answered ${response.status}${code ? ` ${code}` : ''}`;
    if (response.status >= 500 || response.status === 408)
      throw failure(Xs2aErrorType.BankUnavailable, summary, details);
    // invalid_grant, invalid_client, …: the code or the refresh token will not be honoured.
    if (code) throw failure(Xs2aErrorType.ConsentInvalid, summary, details);
    throw failure(Xs2aErrorType.ProtocolError, summary, details);
  }

  /** A token response (RFC 6749 §5.1): a bearer access token, maybe a refresh token and its lifetime. */
  function tokensOf(what: string, body: Record<string, unknown>, previousRefresh: string | null): BankTokens {
    if (typeof body.access_token !== 'string' || body.access_token.length === 0)
      throw protocolError(what, 'access_token missing');
    if (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer')
      throw protocolError(what, 'token_type is not Bearer');
    const expiresIn = Number(body.expires_in);
    return {
      accessToken: body.access_token,
      // A refresh answer without a new refresh token keeps the one it was made with (RFC 6749 §6).
      refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : previousRefresh,
      expiresInSeconds: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : null,
    };
  }

  /**
   * OAuth2 as SCA approach (decision 0067): the bank's authorisation-server metadata (`_links.scaOAuth`,
   * RFC 8414), a PKCE code_verifier (S256), and the authorisation request the PSU's browser is sent to
   * (scope `AIS:<consentId>`, our callback as redirect_uri).
   */
  async function oauthAuthorisation(
    what: string,
    href: string,
    consentId: string,
    redirectUri: string,
  ): Promise<{ scaRedirectUrl: string; oauth: OAuthScaPending }> {
    const metadata = await oauthRequest(`${what} (authorisation server metadata)`, onBankOrigin(what, href));
    const methods = metadata.code_challenge_methods_supported;
    if (!Array.isArray(methods) || !methods.includes('S256'))
      throw protocolError(what, 'the authorisation server does not offer PKCE with S256');
    if (typeof metadata.authorization_endpoint !== 'string' || typeof metadata.token_endpoint !== 'string')
      throw protocolError(what, 'authorization_endpoint or token_endpoint missing');
    let authorize: URL;
    try {
      // The PSU's browser goes there (it may be the bank's public host, as scaRedirect is).
      authorize = new URL(metadata.authorization_endpoint, `${base.origin}/`);
    } catch {
      throw protocolError(what, 'authorization_endpoint is not a URL');
    }
    if (authorize.protocol !== 'https:' && authorize.protocol !== 'http:')
      throw protocolError(what, 'authorization_endpoint is not an http(s) URL');
    const codeVerifier = randomBytes(32).toString('base64url');
    const state = randomBytes(24).toString('base64url');
    const clientId = options.oauthClientId ?? DEFAULT_OAUTH_CLIENT_ID;
    const query = {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: `AIS:${consentId}`,
      state,
      code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'),
      code_challenge_method: 'S256',
    };
    for (const [name, value] of Object.entries(query)) authorize.searchParams.set(name, value);
    return {
      scaRedirectUrl: authorize.toString(),
      oauth: {
        codeVerifier,
        state,
        tokenEndpoint: onBankOrigin(what, metadata.token_endpoint),
        clientId,
        redirectUri,
      },
    };
  }
  const accountPath = (accountId: string) => `/v1/accounts/${encodeURIComponent(accountId)}`;

  function transactionPageOf(what: string, body: Record<string, unknown>): TransactionPage {
    const account = body.account;
    const report = body.transactions;
    if (!isObject(report)) throw protocolError(what, 'no transactions report');
    const list = (value: unknown) => (Array.isArray(value) ? (value as Transaction[]) : []);
    const next = hrefOf(report._links, 'next') ?? hrefOf(body._links, 'next');
    return {
      account: (isObject(account) ? account : {}) as unknown as AccountReference,
      booked: list(report.booked),
      pending: list(report.pending),
      nextPageUrl: next ? new URL(next, `${base.origin}/`).toString() : null,
    };
  }

  /**
   * A link the bank gives for this account's transactions (`_links.next`, `_links.download`) must stay
   * on this bank and under this account's transactions (never an arbitrary URL): a next page is the
   * transactions path itself, a download one below it.
   */
  function checkedTransactionsLink(
    what: string,
    accountId: string,
    href: string,
    kind: 'nextPageUrl' | 'download',
  ): string {
    const refuse = (text: string) =>
      failure(Xs2aErrorType.FormatError, `${what}: ${text}`, {
        status: null,
        code: 'FORMAT_ERROR',
        text,
        retryAfterSeconds: null,
      });
    let target: URL;
    try {
      target = new URL(href, `${base.origin}/`);
    } catch {
      throw refuse(`${kind} is not a URL`);
    }
    const expectedPath = `${base.pathname.replace(/\/+$/, '')}${accountPath(accountId)}/transactions`;
    const onPath =
      kind === 'nextPageUrl'
        ? target.pathname === expectedPath
        : target.pathname.startsWith(`${expectedPath}/`);
    if (target.origin !== base.origin || !onPath)
      throw refuse(
        kind === 'nextPageUrl'
          ? 'nextPageUrl is not a page of this account'
          : 'download is not a report of this account',
      );
    return target.toString();
  }

  const paymentPath = (product: PaymentProduct, paymentId?: string) =>
    `/v1/payments/${encodeURIComponent(product)}${paymentId ? `/${encodeURIComponent(paymentId)}` : ''}`;
  const absolute = (href: string | undefined) => (href ? new URL(href, `${base.origin}/`).toString() : null);

  /**
   * A link the bank gives to go on with a resource (`_links.startAuthorisation`, …): followed as given
   * (never rebuilt), but only on this bank and below the resource it belongs to (`under`, a path
   * relative to the base URL), so a bank's answer cannot send the TPP's requests elsewhere.
   */
  function resourceLink(what: string, href: string, under: string): string {
    const refuse = (text: string) => protocolError(what, text);
    let target: URL;
    try {
      target = new URL(href, `${base.origin}/`);
    } catch {
      throw refuse(`the link ${href} is not a URL`);
    }
    const prefix = `${base.pathname.replace(/\/+$/, '')}${under}`;
    if (
      target.origin !== base.origin ||
      !(target.pathname === prefix || target.pathname.startsWith(`${prefix}/`))
    )
      throw refuse(`the link ${href} leaves the resource ${under}`);
    return target.toString();
  }

  /** The first of the named links the answer carries (in the order given). */
  const firstLink = (links: unknown, names: readonly string[]) => {
    for (const name of names) {
      const href = hrefOf(links, name);
      if (href) return { name, href };
    }
    return undefined;
  };

  /**
   * The explicit start of an authorisation (decision 0061): POST the bank's `startAuthorisation…` link
   * with the headers the approach needs; the answer is the authorisation (REDIRECT: with scaRedirect).
   */
  async function startAuthorisationAt(
    what: string,
    href: string,
    under: string,
    headers: Record<string, string>,
  ): Promise<PaymentAuthorisation> {
    const body = await call(what, 'POST', resourceLink(what, href, under), headers, {});
    return authorisationOf(what, body);
  }
  const lastSegment = (href: string | undefined) => (href ? (href.split('/').pop() ?? null) : null);

  function authorisationOf(what: string, body: Record<string, unknown> | null): PaymentAuthorisation {
    const authorisationId = typeof body?.authorisationId === 'string' ? body.authorisationId : null;
    if (!authorisationId || !isScaStatus(body?.scaStatus))
      throw protocolError(what, 'authorisationId or scaStatus missing');
    return {
      authorisationId,
      scaStatus: body.scaStatus,
      chosenScaMethod: isObject(body.chosenScaMethod)
        ? (body.chosenScaMethod as unknown as AuthenticationObject)
        : null,
      challengeData: isObject(body.challengeData) ? (body.challengeData as ChallengeData) : null,
      psuMessage: typeof body.psuMessage === 'string' ? body.psuMessage : null,
      scaRedirectUrl: absolute(hrefOf(body._links, 'scaRedirect')),
      scaStatusUrl: absolute(hrefOf(body._links, 'scaStatus')),
    };
  }

  const client: Xs2aClient = {
    baseUrl,

    async initiatePayment(product, request, sca) {
      const what = 'initiate payment';
      const preference: Record<string, string> =
        sca.approach === 'REDIRECT'
          ? { 'TPP-Redirect-Preferred': 'true' }
          : sca.approach === 'DECOUPLED'
            ? { 'TPP-Redirect-Preferred': 'false', 'TPP-Decoupled-Preferred': 'true' }
            : { 'TPP-Redirect-Preferred': 'false', 'TPP-Decoupled-Preferred': 'false' };
      const { body, headers } = await exchange(
        what,
        'POST',
        url(paymentPath(product)),
        {
          ...preference,
          ...(sca.redirectUri ? { 'TPP-Redirect-URI': sca.redirectUri } : {}),
          ...(sca.nokRedirectUri ? { 'TPP-Nok-Redirect-URI': sca.nokRedirectUri } : {}),
          ...psuHeaders(sca.psu),
        },
        request,
      );
      if (typeof body?.paymentId !== 'string' || !isTransactionStatus(body.transactionStatus))
        throw protocolError(what, 'paymentId or transactionStatus missing');
      const announced = headers.get('aspsp-sca-approach');
      const approach =
        announced === 'REDIRECT' || announced === 'EMBEDDED' || announced === 'DECOUPLED' ? announced : null;
      const scaRedirectUrl = absolute(hrefOf(body._links, 'scaRedirect'));
      const start = hrefOf(body._links, 'startAuthorisation');
      if ((approach ?? sca.approach) === 'REDIRECT' && !scaRedirectUrl && start) {
        // Redirect with an explicit start: the SCA page comes with the authorisation the TPP starts.
        const started = await startAuthorisationAt(
          `${what} (start authorisation)`,
          start,
          paymentPath(product, body.paymentId),
          {
            ...(sca.redirectUri ? { 'TPP-Redirect-URI': sca.redirectUri } : {}),
            ...(sca.nokRedirectUri ? { 'TPP-Nok-Redirect-URI': sca.nokRedirectUri } : {}),
            ...psuHeaders(sca.psu),
          },
        );
        if (!started.scaRedirectUrl)
          throw protocolError(what, 'the started authorisation has no _links.scaRedirect');
        return {
          paymentId: body.paymentId,
          transactionStatus: body.transactionStatus,
          scaRedirectUrl: started.scaRedirectUrl,
          authorisationId: started.authorisationId,
          approach: 'REDIRECT',
        };
      }
      return {
        paymentId: body.paymentId,
        transactionStatus: body.transactionStatus,
        scaRedirectUrl,
        authorisationId: lastSegment(hrefOf(body._links, 'scaStatus')),
        approach,
      };
    },

    async getPaymentStatus(product, paymentId) {
      const what = 'read payment status';
      const body = await call(what, 'GET', url(`${paymentPath(product, paymentId)}/status`), {});
      if (!isTransactionStatus(body?.transactionStatus))
        throw protocolError(what, 'transactionStatus missing');
      return body.transactionStatus;
    },

    async startPaymentAuthorisation(product, paymentId, psu) {
      const what = 'start payment authorisation';
      const body = await call(
        what,
        'POST',
        url(`${paymentPath(product, paymentId)}/authorisations`),
        psuHeaders(psu),
        {},
      );
      return authorisationOf(what, body);
    },

    async updatePaymentAuthorisation(product, paymentId, authorisationId, scaAuthenticationData, psu) {
      const what = 'authorise payment';
      const body = await call(
        what,
        'PUT',
        url(`${paymentPath(product, paymentId)}/authorisations/${encodeURIComponent(authorisationId)}`),
        psuHeaders(psu),
        { scaAuthenticationData },
      );
      if (!isScaStatus(body?.scaStatus)) throw protocolError(what, 'scaStatus missing');
      return body.scaStatus;
    },

    async getPaymentAuthorisationStatus(product, paymentId, authorisationId) {
      const what = 'read payment authorisation';
      const body = await call(
        what,
        'GET',
        url(`${paymentPath(product, paymentId)}/authorisations/${encodeURIComponent(authorisationId)}`),
        {},
      );
      if (!isScaStatus(body?.scaStatus)) throw protocolError(what, 'scaStatus missing');
      return body.scaStatus;
    },

    async cancelPayment(product, paymentId, sca) {
      const what = 'cancel payment';
      const path = paymentPath(product, paymentId);
      const body = await call(what, 'DELETE', url(path), psuHeaders(sca.psu));
      if (body === null) return { status: 'cancelled' };
      const start = hrefOf(body._links, 'startAuthorisation');
      if (!start) {
        if (body.transactionStatus === 'CANC') return { status: 'cancelled' };
        throw protocolError(what, 'a 202 answer without _links.startAuthorisation');
      }
      const started = await startAuthorisationAt(`${what} (start authorisation)`, start, path, {
        'TPP-Redirect-URI': sca.redirectUri,
        ...(sca.nokRedirectUri ? { 'TPP-Nok-Redirect-URI': sca.nokRedirectUri } : {}),
        ...psuHeaders(sca.psu),
      });
      if (!started.scaRedirectUrl)
        throw protocolError(
          what,
          'the cancellation authorisation has no _links.scaRedirect (only redirect is served)',
        );
      return {
        status: 'authorisationNeeded',
        authorisationId: started.authorisationId,
        scaRedirectUrl: started.scaRedirectUrl,
        scaStatusUrl: started.scaStatusUrl,
      };
    },

    async getCancellationAuthorisationStatus(product, paymentId, scaStatusUrl) {
      const what = 'read cancellation authorisation';
      const target = resourceLink(
        what,
        scaStatusUrl,
        `${paymentPath(product, paymentId)}/cancellation-authorisations`,
      );
      const body = await call(what, 'GET', target, {});
      if (!isScaStatus(body?.scaStatus)) throw protocolError(what, 'scaStatus missing');
      return body.scaStatus;
    },

    async initiateBulkPayment(product, request, sca) {
      const what = 'initiate bulk payment';
      const body = await call(
        what,
        'POST',
        url(`/v1/bulk-payments/${encodeURIComponent(product)}`),
        {
          'TPP-Redirect-Preferred': 'true',
          'TPP-Redirect-URI': sca.redirectUri,
          ...(sca.nokRedirectUri ? { 'TPP-Nok-Redirect-URI': sca.nokRedirectUri } : {}),
          ...psuHeaders(sca.psu),
        },
        request,
      );
      const scaRedirectUrl = absolute(hrefOf(body?._links, 'scaRedirect'));
      if (
        typeof body?.paymentId !== 'string' ||
        !isTransactionStatus(body.transactionStatus) ||
        !scaRedirectUrl
      )
        throw protocolError(what, 'paymentId, transactionStatus or _links.scaRedirect missing');
      return { paymentId: body.paymentId, transactionStatus: body.transactionStatus, scaRedirectUrl };
    },

    async getBulkPaymentStatus(product, paymentId) {
      const what = 'read bulk payment status';
      const path = `/v1/bulk-payments/${encodeURIComponent(product)}/${encodeURIComponent(paymentId)}/status`;
      const body = await call(what, 'GET', url(path), {});
      if (!isTransactionStatus(body?.transactionStatus))
        throw protocolError(what, 'transactionStatus missing');
      return body.transactionStatus;
    },

    async cancelBulkPayment(product, paymentId) {
      const path = `/v1/bulk-payments/${encodeURIComponent(product)}/${encodeURIComponent(paymentId)}`;
      await call('cancel bulk payment', 'DELETE', url(path), {});
    },

    async getBulkPaymentEntries(product, paymentId, page) {
      const what = 'read bulk payment entries';
      const path = `/v1/bulk-payments/${encodeURIComponent(product)}/${encodeURIComponent(paymentId)}`;
      const body = await call(
        what,
        'GET',
        url(path, { offset: String(page.offset), limit: String(page.limit) }),
        {},
      );
      if (!Array.isArray(body?.payments)) throw protocolError(what, 'payments missing');
      return (body.payments as Record<string, unknown>[]).map((entry) => {
        if (typeof entry.endToEndIdentification !== 'string' || typeof entry.transactionStatus !== 'string')
          throw protocolError(what, 'an entry without endToEndIdentification or transactionStatus');
        return {
          endToEndIdentification: entry.endToEndIdentification,
          transactionStatus: entry.transactionStatus,
          reasonCode: typeof entry.reasonCode === 'string' ? entry.reasonCode : null,
        };
      });
    },

    async createConsent(request, redirect, psu) {
      const what = 'create consent';
      const body = await call(
        what,
        'POST',
        url('/v1/consents'),
        {
          'TPP-Redirect-Preferred': 'true',
          'TPP-Redirect-URI': redirect.redirectUri,
          ...(redirect.nokRedirectUri ? { 'TPP-Nok-Redirect-URI': redirect.nokRedirectUri } : {}),
          ...psuHeaders(psu),
        },
        request,
      );
      const consentId = body?.consentId;
      if (typeof consentId !== 'string' || !isConsentStatus(body?.consentStatus))
        throw protocolError(what, 'consentId or consentStatus missing');
      // OAuth2 as SCA approach: the PSU authorises at the bank's authorisation server (decision 0067).
      const scaOAuth = hrefOf(body._links, 'scaOAuth');
      if (scaOAuth)
        return {
          consentId,
          consentStatus: body.consentStatus,
          ...(await oauthAuthorisation(what, scaOAuth, consentId, redirect.redirectUri)),
        };
      const scaRedirect = hrefOf(body._links, 'scaRedirect');
      if (scaRedirect)
        return {
          consentId,
          consentStatus: body.consentStatus,
          scaRedirectUrl: new URL(scaRedirect, `${base.origin}/`).toString(),
        };
      // Redirect with an explicit start: POST the authorisation; its answer carries the SCA page.
      const start = firstLink(body._links, ['startAuthorisation', 'startAuthorisationWithPsuIdentification']);
      if (!start) throw protocolError(what, '_links has neither scaRedirect nor startAuthorisation');
      const started = await startAuthorisationAt(
        `${what} (start authorisation)`,
        start.href,
        `/v1/consents/${encodeURIComponent(consentId)}`,
        {
          'TPP-Redirect-URI': redirect.redirectUri,
          ...(redirect.nokRedirectUri ? { 'TPP-Nok-Redirect-URI': redirect.nokRedirectUri } : {}),
          ...psuHeaders(psu),
        },
      );
      if (!started.scaRedirectUrl)
        throw protocolError(what, 'the started authorisation has no _links.scaRedirect');
      return { consentId, consentStatus: body.consentStatus, scaRedirectUrl: started.scaRedirectUrl };
    },

    async createDecoupledConsent(request, psuId, psu) {
      const what = 'create consent (decoupled)';
      const body = await call(
        what,
        'POST',
        url('/v1/consents'),
        {
          'TPP-Redirect-Preferred': 'false',
          'TPP-Decoupled-Preferred': 'true',
          'PSU-ID': psuId,
          ...psuHeaders(psu),
        },
        request,
      );
      if (typeof body?.consentId !== 'string' || !isConsentStatus(body.consentStatus))
        throw protocolError(what, 'consentId or consentStatus missing');
      // Decoupled with an explicit start: the PSU is named again when the TPP starts the authorisation.
      const start = firstLink(body._links, ['startAuthorisationWithPsuIdentification', 'startAuthorisation']);
      if (start) {
        const started = await startAuthorisationAt(
          `${what} (start authorisation)`,
          start.href,
          `/v1/consents/${encodeURIComponent(body.consentId)}`,
          { 'PSU-ID': psuId, ...psuHeaders(psu) },
        );
        return {
          consentId: body.consentId,
          consentStatus: body.consentStatus,
          psuMessage: started.psuMessage ?? (typeof body.psuMessage === 'string' ? body.psuMessage : null),
        };
      }
      return {
        consentId: body.consentId,
        consentStatus: body.consentStatus,
        psuMessage: typeof body.psuMessage === 'string' ? body.psuMessage : null,
      };
    },

    async createEmbeddedConsent(request, psu) {
      const what = 'create consent (embedded)';
      const body = await call(
        what,
        'POST',
        url('/v1/consents'),
        { 'TPP-Redirect-Preferred': 'false', 'TPP-Decoupled-Preferred': 'false', ...psuHeaders(psu) },
        request,
      );
      if (typeof body?.consentId !== 'string' || !isConsentStatus(body.consentStatus))
        throw protocolError(what, 'consentId or consentStatus missing');
      const start = firstLink(body._links, ['startAuthorisationWithPsuAuthentication', 'startAuthorisation']);
      if (!start) throw protocolError(what, '_links.startAuthorisationWithPsuAuthentication missing');
      return {
        consentId: body.consentId,
        consentStatus: body.consentStatus,
        startAuthorisationUrl: resourceLink(
          what,
          start.href,
          `/v1/consents/${encodeURIComponent(body.consentId)}`,
        ),
      };
    },

    async embeddedConsentStep(consentId, href, input, psu) {
      const under = `/v1/consents/${encodeURIComponent(consentId)}`;
      const [what, method, headers, body] =
        'password' in input
          ? ([
              'authenticate the PSU (embedded)',
              'POST',
              { 'PSU-ID': input.psuId },
              { psuData: { password: input.password } },
            ] as const)
          : 'authenticationMethodId' in input
            ? ([
                'select the SCA method',
                'PUT',
                {},
                { authenticationMethodId: input.authenticationMethodId },
              ] as const)
            : ([
                'authorise with the one-time code',
                'PUT',
                {},
                { scaAuthenticationData: input.scaAuthenticationData },
              ] as const);
      const answer = await call(
        what,
        method,
        resourceLink(what, href, under),
        {
          ...headers,
          ...psuHeaders(psu),
        },
        body,
      );
      if (!isScaStatus(answer?.scaStatus)) throw protocolError(what, 'scaStatus missing');
      const link = (name: string) => {
        const found = hrefOf(answer._links, name);
        return found ? resourceLink(what, found, under) : null;
      };
      // The PUT answers may leave out the id: it is the last segment of the link the step went to.
      const authorisationId =
        typeof answer.authorisationId === 'string'
          ? answer.authorisationId
          : (lastSegment(new URL(resourceLink(what, href, under)).pathname) ?? '');
      return {
        authorisationId,
        scaStatus: answer.scaStatus,
        scaMethods: Array.isArray(answer.scaMethods)
          ? (answer.scaMethods as unknown[])
              .filter(isObject)
              .map((each) => each as unknown as AuthenticationObject)
          : [],
        chosenScaMethod: isObject(answer.chosenScaMethod)
          ? (answer.chosenScaMethod as unknown as AuthenticationObject)
          : null,
        challengeData: isObject(answer.challengeData) ? (answer.challengeData as ChallengeData) : null,
        psuMessage: typeof answer.psuMessage === 'string' ? answer.psuMessage : null,
        links: {
          selectAuthenticationMethod: link('selectAuthenticationMethod'),
          authoriseTransaction: link('authoriseTransaction'),
          scaStatus: link('scaStatus'),
        },
      };
    },

    async exchangeAuthorisationCode(pending, code) {
      const what = 'exchange the authorization code';
      const body = await oauthRequest(what, onBankOrigin(what, pending.tokenEndpoint), {
        grant_type: 'authorization_code',
        code,
        redirect_uri: pending.redirectUri,
        client_id: pending.clientId,
        code_verifier: pending.codeVerifier,
      });
      return tokensOf(what, body, null);
    },

    async refreshAccessToken(tokenEndpoint, clientId, refreshToken) {
      const what = 'refresh the access token';
      const body = await oauthRequest(what, onBankOrigin(what, tokenEndpoint), {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: clientId,
      });
      return tokensOf(what, body, refreshToken);
    },

    async getConsent(consentId) {
      const what = 'read consent';
      const body = await call(what, 'GET', url(`/v1/consents/${encodeURIComponent(consentId)}`), {});
      if (!body || !isConsentStatus(body.consentStatus) || !isObject(body.access))
        throw protocolError(what, 'consentStatus or access missing');
      return {
        consentId,
        consentStatus: body.consentStatus,
        access: body.access as ConsentAccess,
        recurringIndicator: body.recurringIndicator === true,
        validUntil: String(body.validUntil ?? ''),
        frequencyPerDay: Number(body.frequencyPerDay ?? 0),
        lastActionDate: typeof body.lastActionDate === 'string' ? body.lastActionDate : null,
      };
    },

    async getConsentStatus(consentId) {
      const what = 'read consent status';
      const body = await call(what, 'GET', url(`/v1/consents/${encodeURIComponent(consentId)}/status`), {});
      if (!isConsentStatus(body?.consentStatus)) throw protocolError(what, 'consentStatus missing');
      return body.consentStatus;
    },

    async deleteConsent(consentId) {
      await call('delete consent', 'DELETE', url(`/v1/consents/${encodeURIComponent(consentId)}`), {});
    },

    async listAccounts(consentId, listOptions = {}) {
      const what = 'list accounts';
      const body = await call(
        what,
        'GET',
        url('/v1/accounts', { withBalance: listOptions.withBalance ? 'true' : undefined }),
        consentHeaders(consentId, listOptions.psu),
      );
      if (!Array.isArray(body?.accounts)) throw protocolError(what, 'accounts missing');
      return (body.accounts as Record<string, unknown>[]).map(
        ({ _links, ...account }) => account,
      ) as unknown as AccountDetails[];
    },

    async getBalances(consentId, accountId, psu) {
      const what = 'read balances';
      const body = await call(
        what,
        'GET',
        url(`${accountPath(accountId)}/balances`),
        consentHeaders(consentId, psu),
      );
      if (!Array.isArray(body?.balances)) throw protocolError(what, 'balances missing');
      return {
        account: (isObject(body.account) ? body.account : {}) as unknown as AccountReference,
        balances: body.balances as Balance[],
      };
    },

    async listTransactionsPage(consentId, accountId, page, psu) {
      const what = 'list transactions';
      const target =
        'nextPageUrl' in page
          ? checkedTransactionsLink(what, accountId, page.nextPageUrl, 'nextPageUrl')
          : url(`${accountPath(accountId)}/transactions`, {
              dateFrom: page.dateFrom,
              dateTo: page.dateTo,
              bookingStatus: page.bookingStatus ?? 'both',
            });
      const body = await call(what, 'GET', target, consentHeaders(consentId, psu));
      // A long list may come as a link to the report (XS2A 1.3 `_links.download`) instead of inline.
      const download = body && !isObject(body.transactions) ? hrefOf(body._links, 'download') : undefined;
      if (download) {
        const link = checkedTransactionsLink(what, accountId, download, 'download');
        const report = await call(what, 'GET', link, consentHeaders(consentId, psu));
        return transactionPageOf(what, report ?? {});
      }
      return transactionPageOf(what, body ?? {});
    },

    async listTransactions(consentId, accountId, query = {}, psu) {
      let page = await client.listTransactionsPage(consentId, accountId, query, psu);
      const report: TransactionReport = {
        account: page.account,
        booked: [...page.booked],
        pending: [...page.pending],
        pages: 1,
      };
      while (page.nextPageUrl) {
        if (report.pages >= maxPages)
          throw protocolError(
            'list transactions',
            `more than ${maxPages} pages; stopped following _links.next`,
          );
        page = await client.listTransactionsPage(
          consentId,
          accountId,
          { nextPageUrl: page.nextPageUrl },
          psu,
        );
        report.booked.push(...page.booked);
        report.pending.push(...page.pending);
        report.pages += 1;
      }
      return report;
    },

    async getTransaction(consentId, accountId, transactionId, psu) {
      const what = 'read transaction';
      const body = await call(
        what,
        'GET',
        url(`${accountPath(accountId)}/transactions/${encodeURIComponent(transactionId)}`),
        consentHeaders(consentId, psu),
      );
      // XS2A 1.3 answers { transactionsDetails: {...} }; later 1.3.x nest { transactionDetails: {...} }.
      const details = body?.transactionsDetails;
      const transaction =
        isObject(details) && isObject(details.transactionDetails) ? details.transactionDetails : details;
      if (!isObject(transaction) || typeof transaction.transactionId !== 'string')
        throw protocolError(what, 'transactionsDetails missing');
      return transaction as unknown as Transaction;
    },

    async getMaintenanceNotices() {
      const what = 'read maintenance notices';
      const body = await call(what, 'GET', url('/v1/maintenance'), {});
      if (!Array.isArray(body?.notices)) throw protocolError(what, 'notices missing');
      return (body.notices as Record<string, unknown>[])
        .filter(
          (notice) =>
            typeof notice.startsAt === 'string' &&
            typeof notice.endsAt === 'string' &&
            typeof notice.message === 'string',
        )
        .map((notice) => ({
          id: String(notice.id ?? `${notice.startsAt}`),
          startsAt: new Date(notice.startsAt as string).toISOString(),
          endsAt: new Date(notice.endsAt as string).toISOString(),
          message: notice.message as string,
        }));
    },
  };
  return client;
}

/** The connector of one bank, with the configured timeout. */
export function xs2aClientFor(
  bank: { xs2aBaseUrl: string },
  config: Pick<Config, 'OPENBANKING_BANK_REQUEST_TIMEOUT'> &
    Partial<
      Pick<
        Config,
        'OPENBANKING_TPP_SIGNING_KEY' | 'OPENBANKING_TPP_CERTIFICATE' | 'OPENBANKING_TPP_CLIENT_ID'
      >
    >,
  fetchImpl?: typeof fetch,
  /** OAuth2 SCA: the consent's access token at the bank for the reads, and how to renew it (decision 0067). */
  auth?: { accessToken: string; renew?: () => Promise<string> },
): Xs2aClient {
  // Every request to a bank carries the TPP's signature once a key and certificate are configured.
  const signer = tppSignerOf(config);
  return createXs2aClient({
    baseUrl: bank.xs2aBaseUrl,
    requestTimeoutMs: config.OPENBANKING_BANK_REQUEST_TIMEOUT,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
    ...(signer ? { signer } : {}),
    ...(auth ? { accessToken: auth.accessToken } : {}),
    ...(auth?.renew ? { renewAccessToken: auth.renew } : {}),
    ...(config.OPENBANKING_TPP_CLIENT_ID ? { oauthClientId: config.OPENBANKING_TPP_CLIENT_ID } : {}),
  });
}

/**
 * The consent needs a new SCA: its access token at the bank expired and there is no refresh token (an
 * Xs2aConsentInvalid, as the bank's own refusal would be).
 */
export function accessTokenExpired(what: string): ApplicationFailure {
  return failure(
    Xs2aErrorType.ConsentInvalid,
    `${what}: the bank's access token expired; a new SCA is needed`,
    {
      status: null,
      code: 'TOKEN_EXPIRED',
      text: 'the access token expired and the bank gave no refresh token',
      retryAfterSeconds: null,
    },
  );
}
