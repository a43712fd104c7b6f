import { electronicFormatIBAN, isValidIBAN } from 'ibantools';
import { z } from 'zod';
import { duration, durationList, optionalUrl, port } from '../config-fields.ts';

/** The sandbox's collection account (a test IBAN): the default, refused in production. */
export const SANDBOX_COLLECTION_IBAN = 'BG80BNBG96611020345678';
/** The key the sandbox acquirer `npm start` runs requires: published, so refused in production. */
export const SANDBOX_ACQUIRER_API_KEY = 'sandbox-acquirer-key-0000';

/** Configuration of the payment-collection gateway (docs/collect.md, Configuration). */
export const collectConfig = z.object({
  /**
   * Payment-collection gateway. COLLECT_SECRET_KEY (64 hex characters) encrypts merchant secrets at
   * rest; unset outside production, a fixed development key is derived (see docs/collect.md).
   */
  COLLECT_SECRET_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (a 256-bit key)')
    .optional(),
  /** Expiry of an office obligation, bank transfer or deposit slip registered without EXP_TIME. */
  COLLECT_OBLIGATION_EXPIRY: duration('7d'),
  /** Expiry of a cash payout (office/send.cgi, send/send.cgi) registered without EXP_TIME. */
  COLLECT_PAYOUT_EXPIRY: duration('7d'),
  /** How long a pre-authorisation hold waits for finalize or reverse when EXP_TIME is not given. */
  COLLECT_PREAUTH_EXPIRY: duration('7d'),
  /** The latest EXP_TIME a merchant may set, counted from now. */
  COLLECT_MAX_EXPIRY: duration('365d'),
  /** One-touch: a pairing code from `code/get` must be exchanged (`token/get`) within this time. */
  COLLECT_ONE_TOUCH_CODE_TTL: duration('2m'),
  /** One-touch: an access token's lifetime (it ends earlier when invalidated). */
  COLLECT_ONE_TOUCH_TOKEN_TTL: duration('365d'),
  /** One-touch: how long a payment ID from `payment/init` stays usable when EXP is not given. */
  COLLECT_ONE_TOUCH_PAYMENT_ID_TTL: duration('1h'),
  /** Card page: how long a rendered payment form may be submitted (never past the obligation's expiry). */
  COLLECT_CARD_PAGE_TTL: duration('30m'),
  /**
   * Saved-card charges (GET /card/charge.cgi, decision 0045): how long a charge the acquirer could not
   * be asked for stays open for the same packet to be sent again; then it expires (and its hold, if any,
   * is released).
   */
  COLLECT_CARD_CHARGE_EXPIRY: duration('1d'),

  /**
   * The gateway's collection account (decision 0045): deposit slips (GET /office/reg_vnbel.cgi) tell the
   * payer to transfer to this IBAN and beneficiary, with the IDN in the remittance information; its camt
   * statements settle them. The sandbox defaults name a test account; production must name its own.
   */
  COLLECT_COLLECTION_IBAN: z
    .string()
    .transform((value) => electronicFormatIBAN(value) ?? value)
    .refine((value) => isValidIBAN(value), 'must be a valid IBAN')
    .default(SANDBOX_COLLECTION_IBAN),
  COLLECT_COLLECTION_BENEFICIARY: z
    .string()
    .trim()
    .min(1)
    .max(70, 'at most 70 characters (a transfer’s beneficiary name)')
    .default('Integration Platform Collections'),
  /**
   * Merchant notifications: the gateway's RSA private key (PEM) that SIGNs them; its public part is
   * published at /collect/.well-known/notification-key.pem. Unset outside production, a key is
   * generated once and kept in DATA_DIR/collect-signing-key.pem.
   */
  COLLECT_SIGNING_KEY: z
    .string()
    .includes('PRIVATE KEY', { message: 'must be a PEM private key' })
    .optional(),
  /** Delays after each failed notification attempt (first attempt immediate); about 4.5 days. */
  COLLECT_NOTIFY_RETRY_SCHEDULE: durationList('1m,5m,15m,30m,1h,2h,4h,8h,12h,24h,24h,24h'),
  COLLECT_NOTIFY_REQUEST_TIMEOUT: duration('15s'),
  /** How long a fresh notification waits for others of the same merchant to share its POST. */
  COLLECT_NOTIFY_BATCH_WINDOW: duration('1s'),
  /** At most this many invoices in one notification POST. */
  COLLECT_NOTIFY_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(100),
  /** Billing: how long the office waits for /pay/init (retrying code 80 and network errors). */
  COLLECT_BILLING_CHECK_TIMEOUT: duration('30s'),
  /** Billing: delays after each failed /pay/confirm (code 80, network error); about 4.5 days. */
  COLLECT_BILLING_RETRY_SCHEDULE: durationList('1m,5m,15m,30m,1h,2h,4h,8h,12h,24h,24h,24h'),
  COLLECT_BILLING_REQUEST_TIMEOUT: duration('15s'),

  /**
   * The gateway's fee on each settled payment, payout and send of a merchant, in basis points of its
   * amount, rounded half up (docs/collect.md "Ledger"); 0 charges nothing.
   */
  COLLECT_FEE_BPS: z.coerce.number().int().min(0).max(10_000).default(0),

  /** Cash desks: how long an operator's login (desk API bearer token, desk page cookie) lasts. */
  COLLECT_DESK_SESSION_TTL: duration('12h'),

  /**
   * Card acquirer (connectors/collect/acquirer.ts, docs/collect.md "Card acquirer"): its id (names it in
   * settlements and the ledger), base URL and API key (sent as X-Api-Key). Unset in sandbox mode, the
   * sandbox acquirer `npm start` runs on SANDBOX_ACQUIRER_PORT; production must name all three.
   */
  COLLECT_ACQUIRER_ID: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'lower-case letters, digits, dashes')
    .default('sandbox-acquirer'),
  COLLECT_ACQUIRER_URL: optionalUrl,
  COLLECT_ACQUIRER_API_KEY: z
    .string()
    .min(16, 'must be at least 16 characters')
    .default(SANDBOX_ACQUIRER_API_KEY),
  COLLECT_ACQUIRER_REQUEST_TIMEOUT: duration('15s'),
  /** The sandbox card acquirer (authorisations, 3-D Secure page, captures). */
  SANDBOX_ACQUIRER_PORT: port(4040),
  /** Where a person's browser reaches the sandbox acquirer's 3-D Secure page; default its listening URL. */
  SANDBOX_ACQUIRER_PUBLIC_URL: optionalUrl,

  /**
   * Bank statements (docs/collect.md "Bank statements"): camt.053/054 files dropped in this folder are
   * imported by a worker and moved to its `processed/` (or, refused, `failed/`) subfolder; unset, no
   * folder is watched (uploads and `npm run admin -- collect:statement` still import).
   */
  COLLECT_STATEMENT_DIR: z.string().min(1).optional(),
  /** How often the statement folder is looked at. */
  COLLECT_STATEMENT_POLL_INTERVAL: duration('10s'),
  /** The largest statement document imported (bytes); larger ones are refused (413). */
  COLLECT_STATEMENT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024 * 1024),
  /**
   * Matched credits a statement import settles per activity (a batch), and how many of their
   * obligations' payments are in flight at once (decision 0071): bounds the stack's memory and the
   * work a crash repeats, whatever the statement's size.
   */
  COLLECT_STATEMENT_SETTLE_BATCH: z.coerce.number().int().min(1).max(5000).default(250),
  COLLECT_STATEMENT_SETTLE_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),

  /** The sandbox merchant of the payment-collection gateway (notifications, billing). */
  SANDBOX_MERCHANT_PORT: port(4030),
});

/** Keys sandbox mode generates for development, and the parties it defaults to, that production must be given. */
export const collectProductionKeys = [
  'COLLECT_SECRET_KEY',
  'COLLECT_SIGNING_KEY',
  // Unset, the card acquirer would be this machine's sandbox acquirer with its published key.
  'COLLECT_ACQUIRER_ID',
  'COLLECT_ACQUIRER_URL',
  'COLLECT_ACQUIRER_API_KEY',
  // Unset, deposit slips would send payers' money to the sandbox's test account.
  'COLLECT_COLLECTION_IBAN',
  'COLLECT_COLLECTION_BENEFICIARY',
] as const;

/** Outside parties of the gateway: in production not on loopback or private addresses (platform/production-parties.ts). */
export const collectPartyUrls = ['COLLECT_ACQUIRER_URL'] as const;

/** Published sandbox values production refuses even when set explicitly. */
export const collectSandboxValues = [
  {
    variable: 'COLLECT_ACQUIRER_API_KEY',
    value: SANDBOX_ACQUIRER_API_KEY,
    what: "the sandbox acquirer's published key",
  },
  {
    variable: 'COLLECT_COLLECTION_IBAN',
    value: SANDBOX_COLLECTION_IBAN,
    what: "the sandbox's test account (deposit slips would send payers' money there)",
    normalise: (text: string) => electronicFormatIBAN(text) ?? text,
  },
] as const;
