import { z } from 'zod';
import { parseBankDirectory } from '../../domain/openbanking/bank-directory.ts';
import { duration, optionalUrl, parsedText, port } from '../config-fields.ts';

/** Configuration of the open-banking gateway (docs/openbanking.md). */
export const openBankingConfig = z.object({
  /**
   * Open-banking gateway: identity and signing (credentials/openbanking/identity.ts, credentials/openbanking/jws.ts).
   * OPENBANKING_USER_TOKEN_TTL: lifetime of a user token (POST usertoken).
   * OPENBANKING_SIGNING_KEY_RETENTION: a retired signing key stays published (and verifying) this long;
   * keep it longer than the token lifetime and the webhook retry schedule.
   * OPENBANKING_SIGNING_KEY_MAX_AGE: the current key is replaced on first use after this age.
   * OPENBANKING_KEY_ENCRYPTION_KEY: encrypts the private signing keys at rest; required in production.
   * OPENBANKING_AIS_LINK_TTL: lifetime of the AIS link sent by POST agent/ais/email.
   */
  OPENBANKING_USER_TOKEN_TTL: duration('15m'),
  OPENBANKING_SIGNING_KEY_RETENTION: duration('7d'),
  OPENBANKING_SIGNING_KEY_MAX_AGE: duration('90d'),
  OPENBANKING_KEY_ENCRYPTION_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  OPENBANKING_AIS_LINK_TTL: duration('7d'),

  /**
   * Open-banking bank directory and connectors (docs/openbanking.md, "Banks").
   * OPENBANKING_BANKS: JSON array of banks ({code, name, country, bic, xs2aBaseUrl, bankFlowType,
   * supportsPagedTransactions}); OPENBANKING_BANK_DIRECTORY_URL: a directory answering { banks: [...] }
   * (in sandbox mode it defaults to the sandbox banks' /directory on SANDBOX_BANKS_PORT). Both are read
   * at worker start and every OPENBANKING_BANK_REFRESH_INTERVAL, with the banks' maintenance notices.
   */
  OPENBANKING_BANKS: parsedText('[]', parseBankDirectory),
  OPENBANKING_BANK_DIRECTORY_URL: optionalUrl,
  OPENBANKING_BANK_REFRESH_INTERVAL: duration('5m'),
  /** Per HTTP request to a bank's XS2A interface. */
  OPENBANKING_BANK_REQUEST_TIMEOUT: duration('20s'),
  /**
   * Open-banking consents (docs/openbanking.md, "Consents and SCA"): a consent whose SCA the bank has not
   * called back for within OPENBANKING_SCA_TIMEOUT is ABANDONED (and its bank consent terminated);
   * OPENBANKING_CONSENT_VALIDITY is the default `validUntil` of a new consent, counted from today.
   */
  OPENBANKING_SCA_TIMEOUT: duration('30m'),
  OPENBANKING_CONSENT_VALIDITY: duration('90d'),
  /**
   * An ACTIVE consent's accounts, balances and transactions are read again from the bank every
   * OPENBANKING_REFRESH_INTERVAL until its validUntil, never more often a day than its frequencyPerDay
   * allows; its refresh workflow continues as new after OPENBANKING_REFRESHES_PER_RUN refreshes.
   */
  OPENBANKING_REFRESH_INTERVAL: duration('6h'),
  OPENBANKING_REFRESHES_PER_RUN: z.coerce.number().int().min(1).max(1000).default(50),
  /**
   * Bulk payments (docs/openbanking.md, "Bulk payments"): entries are read back from the bank and
   * recorded OPENBANKING_BULK_BATCH_SIZE at a time, one child workflow per batch; while the bank still
   * executes the bulk its status is asked every OPENBANKING_BULK_POLL_INTERVAL (doubling up to an hour).
   */
  OPENBANKING_BULK_BATCH_SIZE: z.coerce.number().int().min(1).max(5000).default(500),
  OPENBANKING_BULK_POLL_INTERVAL: duration('5s'),
  /** How long a `nextPageUrl` cursor of paged transactions stays usable (the bank's link stays with us). */
  OPENBANKING_PAGE_CURSOR_TTL: duration('1h'),
  /**
   * Payment initiation (docs/openbanking.md, "Payment initiation"): a payment not confirmed (POST/PUT
   * payment) within OPENBANKING_PAYMENT_CONFIRMATION_TIMEOUT is EXPIRED; its SCA at the bank must end
   * within OPENBANKING_SCA_TIMEOUT after the confirmation; a decoupled SCA is read from the bank every
   * OPENBANKING_DECOUPLED_POLL_INTERVAL.
   */
  OPENBANKING_PAYMENT_CONFIRMATION_TIMEOUT: duration('1h'),
  OPENBANKING_DECOUPLED_POLL_INTERVAL: duration('3s'),
  /**
   * Embedded SCA (decision 0068): a step's password or one-time code waits, sealed, in ob_sca_secrets for
   * the activity that relays it to the bank at most this long; later, the step must be given again.
   */
  OPENBANKING_SCA_SECRET_TTL: duration('5m'),
  /**
   * The gateway's TPP identity toward banks (credentials/openbanking/tpp-signing.ts): a PEM private key
   * and its PEM certificate (QSeal in production); `\n` may stand for line breaks. Set, every XS2A request
   * is signed (Digest, Signature, TPP-Signature-Certificate); unset, requests go unsigned.
   */
  OPENBANKING_TPP_SIGNING_KEY: z
    .string()
    .min(1)
    .transform((pem) => pem.replaceAll('\\n', '\n'))
    .optional(),
  OPENBANKING_TPP_CERTIFICATE: z
    .string()
    .min(1)
    .transform((pem) => pem.replaceAll('\\n', '\n'))
    .optional(),
  /**
   * Our client_id at the banks' OAuth2 authorisation servers (OAuth2 as SCA approach, decision 0067);
   * a bank registers it with the TPP (usually the organisation identifier of its certificate).
   */
  OPENBANKING_TPP_CLIENT_ID: z.string().min(1).max(200).default('integration-platform'),
  /** The sandbox banks (XS2A 1.3 + hosted SCA page), started by `npm start` in sandbox mode. */
  SANDBOX_BANKS_PORT: port(4020),
  /**
   * Where a person's browser reaches the sandbox banks (their SCA page links, `_links.scaRedirect`);
   * default: the URL they listen at. The platform reaches them at its OPENBANKING_BANK_DIRECTORY_URL's
   * origin instead (docker-compose: browser http://localhost:4020, worker http://sandbox:4020).
   */
  SANDBOX_BANKS_PUBLIC_URL: optionalUrl,
});

/** Keys sandbox mode generates for development but production must be given. */
export const openBankingProductionKeys = ['OPENBANKING_KEY_ENCRYPTION_KEY'] as const;

/**
 * The bank directory: in production not on loopback or private addresses unless allow-listed (so are
 * the `xs2aBaseUrl`s of OPENBANKING_BANKS; the banks a directory answers with are not checked at start).
 */
export const openBankingPartyUrls = ['OPENBANKING_BANK_DIRECTORY_URL'] as const;
