import { type RequestSigner, tppSignerOf } from '../../credentials/openbanking/tpp-signing.ts';
import type { Config } from '../../platform/config.ts';
import { outboundFetchFor } from '../../platform/outbound-http.ts';
import { type Xs2aAccounts, xs2aAccounts } from './xs2a/accounts.ts';
import { type Xs2aAuthorisations, xs2aAuthorisations } from './xs2a/authorisations.ts';
import { type Xs2aBulkPayments, xs2aBulkPayments } from './xs2a/bulk-payments.ts';
import { type Xs2aConsents, xs2aConsents } from './xs2a/consents.ts';
import { type Xs2aOAuth, xs2aOAuth } from './xs2a/oauth.ts';
import { type Xs2aPayments, xs2aPayments } from './xs2a/payments.ts';
import { createXs2aTransport, type Xs2aClientOptions } from './xs2a/transport.ts';

export type { TransactionPage, TransactionQuery, TransactionReport } from './xs2a/accounts.ts';
export type { PaymentAuthorisation } from './xs2a/authorisations.ts';
export type { BulkPaymentInitiationRequest, InitiatedBulkPayment } from './xs2a/bulk-payments.ts';
export type {
  ConsentInformation,
  CreatedConsent,
  CreatedDecoupledConsent,
  CreatedEmbeddedConsent,
} from './xs2a/consents.ts';
export { accessTokenExpired, xs2aErrorTypeOf } from './xs2a/errors.ts';
export { DEFAULT_OAUTH_CLIENT_ID } from './xs2a/oauth.ts';
export type { InitiatedPayment, PaymentCancellation, PaymentScaOptions } from './xs2a/payments.ts';
export type { Xs2aClientOptions } from './xs2a/transport.ts';
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
 *
 * The client is composed of one part per area (connectors/openbanking/xs2a/): consents, accounts,
 * payments, bulk payments, authorisations (SCA), OAuth2, all sending through one transport.
 */

export interface Xs2aClient
  extends Xs2aConsents,
    Xs2aAuthorisations,
    Xs2aOAuth,
    Xs2aAccounts,
    Xs2aPayments,
    Xs2aBulkPayments {
  readonly baseUrl: string;
}

export function createXs2aClient(options: Xs2aClientOptions): Xs2aClient {
  const transport = createXs2aTransport(options);
  return {
    baseUrl: transport.baseUrl,
    ...xs2aConsents(transport),
    ...xs2aAuthorisations(transport),
    ...xs2aOAuth(transport),
    ...xs2aAccounts(transport),
    ...xs2aPayments(transport),
    ...xs2aBulkPayments(transport),
  };
}

/** What the connector needs of a bank (an ob_banks row): its base URL and its other hosts. */
export interface Xs2aBank {
  xs2aBaseUrl: string;
  linkHosts?: readonly string[] | null;
}

type PolicyConfig = Pick<Config, 'PLATFORM_MODE' | 'OUTBOUND_URL_ALLOWLIST'>;
/** One outbound-policy fetch (and its connection pool) per configuration. */
const linkFetches = new WeakMap<PolicyConfig, typeof fetch>();
function linkFetchFor(config: PolicyConfig): typeof fetch {
  const known = linkFetches.get(config);
  if (known) return known;
  const linkFetch = outboundFetchFor(config);
  linkFetches.set(config, linkFetch);
  return linkFetch;
}

/**
 * The connector of one bank, with the configured timeout. Requests to a host other than the base
 * URL's (the bank's other hosts, its OAuth2 authorisation server) go through the outbound-URL policy
 * of the configuration (decision 0082).
 */
export function xs2aClientFor(
  bank: Xs2aBank,
  config: Pick<Config, 'OPENBANKING_BANK_REQUEST_TIMEOUT'> &
    PolicyConfig &
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
    linkHosts: bank.linkHosts ?? [],
    linkFetch: linkFetchFor(config),
    requestTimeoutMs: config.OPENBANKING_BANK_REQUEST_TIMEOUT,
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
    ...(signer ? { signer } : {}),
    ...(auth ? { accessToken: auth.accessToken } : {}),
    ...(auth?.renew ? { renewAccessToken: auth.renew } : {}),
    ...(config.OPENBANKING_TPP_CLIENT_ID ? { oauthClientId: config.OPENBANKING_TPP_CLIENT_ID } : {}),
  });
}
