import { z } from 'zod';
import { duration, durationList, port } from '../config-fields.ts';

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

  /** The sandbox merchant of the payment-collection gateway (notifications, billing). */
  SANDBOX_MERCHANT_PORT: port(4030),
});

/** Keys sandbox mode generates for development but production must be given. */
export const collectProductionKeys = ['COLLECT_SECRET_KEY', 'COLLECT_SIGNING_KEY'] as const;
