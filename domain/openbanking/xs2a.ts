/**
 * The subset of the Berlin Group NextGenPSD2 XS2A 1.3 interface the platform speaks to banks, as
 * types and constants shared by the sandbox banks, the bank connector (connectors/openbanking/
 * xs2a-client.ts) and workflow code. Pure: no I/O, safe to import from workflows.
 */

/** Consent states of XS2A 1.3 that the platform meets. */
export const CONSENT_STATUSES = [
  'received',
  'valid',
  'rejected',
  'expired',
  'revokedByPsu',
  'terminatedByTpp',
] as const;
export type ConsentStatus = (typeof CONSENT_STATUSES)[number];

/** A consent in one of these states never becomes usable again. */
export const FINAL_CONSENT_STATUSES: readonly ConsentStatus[] = [
  'rejected',
  'expired',
  'revokedByPsu',
  'terminatedByTpp',
];

export type BookingStatus = 'booked' | 'pending' | 'both';

export type BalanceType =
  | 'closingBooked'
  | 'expected'
  | 'interimAvailable'
  | 'interimBooked'
  | 'openingBooked';

/** The PSU is present (their IP address and browser are forwarded; reads are not counted). */
export interface PsuPresence {
  ipAddress: string;
  userAgent?: string;
}

/** How the PSU authenticates at the bank (the gateway's `bankFlowType`). */
export const BANK_FLOW_TYPES = ['redirect', 'embedded', 'decoupled'] as const;
export type BankFlowType = (typeof BANK_FLOW_TYPES)[number];

/** `{ iban, currency? }`: an account reference inside a consent's access. */
export interface AccountReference {
  iban: string;
  currency?: string;
}

/**
 * What a consent grants. Either lists of accounts per service (an empty list on every service asks
 * the bank to let the PSU choose: a "bank-offered consent"), or `allPsd2`, or `availableAccounts`
 * (the account list only, for a one-shot account-list consent).
 */
export interface ConsentAccess {
  accounts?: AccountReference[];
  balances?: AccountReference[];
  transactions?: AccountReference[];
  availableAccounts?: 'allAccounts' | 'allAccountsWithOwnerName';
  allPsd2?: 'allAccounts' | 'allAccountsWithOwnerName';
}

export interface ConsentRequest {
  access: ConsentAccess;
  recurringIndicator: boolean;
  /** YYYY-MM-DD, the last day the consent may be used. */
  validUntil: string;
  /** Reads a day per account and endpoint without the PSU present; 1 for a one-off consent. */
  frequencyPerDay: number;
  combinedServiceIndicator: boolean;
}

export interface Amount {
  currency: string;
  /** Decimal as a string, e.g. "-12.50", as XS2A writes amounts. */
  amount: string;
}

export interface Balance {
  balanceType: BalanceType;
  balanceAmount: Amount;
  referenceDate?: string;
  lastChangeDateTime?: string;
}

export interface AccountDetails {
  resourceId: string;
  iban: string;
  currency: string;
  name?: string;
  product?: string;
  cashAccountType?: string;
  status?: 'enabled' | 'deleted' | 'blocked';
  bic?: string;
  ownerName?: string;
  balances?: Balance[];
}

export interface Transaction {
  transactionId: string;
  entryReference?: string;
  /** Absent on pending transactions. */
  bookingDate?: string;
  valueDate?: string;
  transactionAmount: Amount;
  creditorName?: string;
  creditorAccount?: AccountReference;
  debtorName?: string;
  debtorAccount?: AccountReference;
  remittanceInformationUnstructured?: string;
  bankTransactionCode?: string;
}

/** A maintenance window a bank announces (an ASPSP-specific extension; see docs/openbanking.md). */
export interface MaintenanceNotice {
  id: string;
  /** ISO 8601 instants. */
  startsAt: string;
  endsAt: string;
  message: string;
}

/** Berlin Group error codes the platform reacts to. */
export type TppMessageCode =
  | 'CONSENT_INVALID'
  | 'CONSENT_EXPIRED'
  | 'CONSENT_UNKNOWN'
  | 'ACCESS_EXCEEDED'
  | 'FORMAT_ERROR'
  | 'RESOURCE_UNKNOWN'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_SERVER_ERROR'
  // PIS and SCA
  | 'PSU_CREDENTIALS_INVALID'
  | 'RESOURCE_EXPIRED'
  | 'STATUS_INVALID'
  | 'PAYMENT_FAILED'
  | 'PRODUCT_UNKNOWN'
  | 'CANCELLATION_INVALID'
  // TPP identity (request signing)
  | 'SIGNATURE_MISSING'
  | 'SIGNATURE_INVALID'
  | 'CERTIFICATE_INVALID'
  // OAuth2 as SCA approach: the bearer token of the reads (decision 0067)
  | 'TOKEN_INVALID'
  | 'TOKEN_EXPIRED';

export interface TppMessage {
  category: 'ERROR' | 'WARNING';
  code: TppMessageCode | string;
  path?: string;
  text?: string;
}

/**
 * `ApplicationFailure.type` of each error the bank connector raises, so workflow code can tell them
 * apart (`error.cause.type` of an ActivityFailure). Non-retryable unless noted.
 */
export const Xs2aErrorType = {
  /** 401 CONSENT_INVALID: not (yet/any more) valid for this access: received, rejected, revoked, terminated, or outside its scope. */
  ConsentInvalid: 'Xs2aConsentInvalid',
  /** 401 CONSENT_EXPIRED: validUntil has passed; a new consent (with SCA) is needed. */
  ConsentExpired: 'Xs2aConsentExpired',
  /** 403/400 CONSENT_UNKNOWN: the bank does not know the consent id. */
  ConsentUnknown: 'Xs2aConsentUnknown',
  /** 429 ACCESS_EXCEEDED: frequencyPerDay reads without the PSU present are used up for today. */
  AccessExceeded: 'Xs2aAccessExceeded',
  /** 400 FORMAT_ERROR (or another 4xx): the request itself is wrong; retrying cannot help. */
  FormatError: 'Xs2aFormatError',
  /** 404 RESOURCE_UNKNOWN: the account or transaction is not known under this consent. */
  ResourceUnknown: 'Xs2aResourceUnknown',
  /** 503 SERVICE_UNAVAILABLE (maintenance), other 5xx, timeouts, network errors: RETRYABLE. */
  BankUnavailable: 'Xs2aBankUnavailable',
  /** The bank answered something that is not XS2A (unparseable body, a next link to another host). */
  ProtocolError: 'Xs2aProtocolError',
  /** 401 PSU_CREDENTIALS_INVALID: the one-time code (or credentials) given for an SCA is wrong. */
  ScaCredentialsInvalid: 'Xs2aScaCredentialsInvalid',
  /** 403 RESOURCE_EXPIRED: the one-time code (or the authorisation) has expired. */
  ScaExpired: 'Xs2aScaExpired',
  /** 409 STATUS_INVALID: the resource is not in a state that allows this (an authorisation already used). */
  StatusInvalid: 'Xs2aStatusInvalid',
  /** 400 PAYMENT_FAILED: the bank refused to initiate the payment. */
  PaymentFailed: 'Xs2aPaymentFailed',
  /** 401 SIGNATURE_INVALID / CERTIFICATE_INVALID, 400 SIGNATURE_MISSING: the bank refused our TPP identity. */
  SignatureInvalid: 'Xs2aSignatureInvalid',
} as const;
export type Xs2aErrorType = (typeof Xs2aErrorType)[keyof typeof Xs2aErrorType];

/** Details attached to every connector failure (`ApplicationFailure.details[0]`). */
export interface Xs2aErrorDetails {
  /** HTTP status, or null for a network error/timeout. */
  status: number | null;
  /** The first tppMessages code, when the bank sent one. */
  code: string | null;
  text: string | null;
  /** Seconds from a Retry-After header (503 maintenance windows, 429). */
  retryAfterSeconds: number | null;
}

// ─── Payment initiation (PIS) ────────────────────────────────────────────────────────────────────

/** Payment products the platform initiates (`/v1/payments/{product}`). */
export const PAYMENT_PRODUCTS = [
  'sepa-credit-transfers',
  'instant-sepa-credit-transfers',
  'domestic-credit-transfers',
] as const;
export type PaymentProduct = (typeof PAYMENT_PRODUCTS)[number];

/** The SCA approach the TPP asks for (TPP-Redirect-Preferred / TPP-Decoupled-Preferred headers). */
export const SCA_APPROACHES = ['REDIRECT', 'EMBEDDED', 'DECOUPLED'] as const;
export type ScaApproach = (typeof SCA_APPROACHES)[number];

/** Berlin Group 1.3 scaStatus of an authorisation. */
export const SCA_STATUSES = [
  'received',
  'psuIdentified',
  'psuAuthenticated',
  'scaMethodSelected',
  'started',
  'unconfirmed',
  'finalised',
  'failed',
  'exempted',
] as const;
export type ScaStatus = (typeof SCA_STATUSES)[number];

/** The body of POST /v1/payments/{product} (a single payment, JSON). */
export interface PaymentInitiationRequest {
  endToEndIdentification?: string;
  debtorAccount: AccountReference;
  instructedAmount: Amount;
  creditorAccount: AccountReference;
  creditorName: string;
  remittanceInformationUnstructured?: string;
  /** Budget payments carry their details here (see domain/openbanking/payment-orders.ts budgetRemittance). */
  remittanceInformationStructured?: { reference: string; referenceType?: string; referenceIssuer?: string };
}

/** A Berlin Group `chosenScaMethod` / `scaMethods` entry. */
export interface AuthenticationObject {
  authenticationType: string;
  authenticationMethodId: string;
  name?: string;
}

/** `challengeData` of an embedded SCA. */
export interface ChallengeData {
  otpMaxLength?: number;
  otpFormat?: 'characters' | 'integer';
  additionalInformation?: string;
}

/** The `patched()` id of the OAuth2 SCA's token exchange after the callback (workflows; decision 0067). */
export const OAUTH2_SCA_PATCH = 'xs2a-oauth2-sca';

/**
 * OAuth2 as SCA approach (decision 0067): what the TPP keeps from the authorisation request until the
 * bank's callback brings the code. The code_verifier is a secret: it crosses Temporal only (sealed by
 * the payload codec) and is never written to the database or a log.
 */
export interface OAuthScaPending {
  codeVerifier: string;
  /** The `state` of the authorisation request; the callback must bring it back. */
  state: string;
  /** The bank's token endpoint (RFC 8414 `token_endpoint`), on the bank's origin. */
  tokenEndpoint: string;
  clientId: string;
  redirectUri: string;
}

/** The bank's answer to a token request (RFC 6749 §5.1). */
export interface BankTokens {
  accessToken: string;
  refreshToken: string | null;
  expiresInSeconds: number | null;
}

/** The `patched()` id of the decoupled SCA polling with backoff (workflows; decision 0061). */
export const DECOUPLED_BACKOFF_PATCH = 'xs2a-decoupled-backoff';

/**
 * The wait before the `attempt`-th (0-based) read of a decoupled SCA's status: the configured interval,
 * growing by half each read up to ten times the interval (at most a minute, never under the interval),
 * so a PSU who takes long to reach their phone costs the bank fewer reads.
 */
export function decoupledPollDelayMs(pollMs: number, attempt: number): number {
  const ceiling = Math.max(pollMs, Math.min(10 * pollMs, 60_000));
  return Math.min(ceiling, Math.round(pollMs * 1.5 ** Math.min(attempt, 30)));
}

/**
 * One step of an embedded SCA with explicit start and method selection (decision 0061): where the
 * authorisation stands, what the PSU may choose or must enter, and the bank's links to go on with
 * (absolute URLs on the bank, followed as given).
 */
export interface EmbeddedScaStep {
  authorisationId: string;
  scaStatus: ScaStatus;
  scaMethods: AuthenticationObject[];
  chosenScaMethod: AuthenticationObject | null;
  challengeData: ChallengeData | null;
  psuMessage: string | null;
  links: {
    selectAuthenticationMethod: string | null;
    authoriseTransaction: string | null;
    scaStatus: string | null;
  };
}

/** What the PSU gives an embedded SCA, one step at a time (relayed by the gateway, never stored). */
export type EmbeddedScaInput =
  | { psuId: string; password: string }
  | { authenticationMethodId: string }
  | { scaAuthenticationData: string };
