import path from 'node:path';
import { z } from 'zod';
import { parseDurationList, parseDurationMs } from '../domain/durations.ts';
import { parseBankDirectory } from '../domain/openbanking/bank-directory.ts';

/**
 * All configuration is read once from the environment, validated here, and passed down explicitly.
 * A bad value stops start-up with a message naming the variable (see ConfigError).
 */

/** A text variable with a default, turned into a value by `parse`; a parse error names the variable. */
const parsedText = <T>(fallback: string, parse: (text: string) => T) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      try {
        return parse(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    });

const duration = (fallback: string) => parsedText(fallback, parseDurationMs);
const durationList = (fallback: string) => parsedText(fallback, parseDurationList);

const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

const optionalUrl = z
  .string()
  .url()
  .optional()
  .or(z.literal('').transform(() => undefined));

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  /** `sandbox` enables demo-only endpoints and the sandbox parties; `production` disables them. */
  PLATFORM_MODE: z.enum(['sandbox', 'production']).default('sandbox'),
  PORT: port(3000),
  HOST: z.string().default('127.0.0.1'),
  /** Public base URL of the API, used in links handed to outside parties. */
  PUBLIC_BASE_URL: optionalUrl,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().default('data'),
  /** Bearer token of the operator endpoints under /admin; they are disabled (404) when unset. */
  ADMIN_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
  /** A PostgreSQL URL; when unset the embedded stack uses PGlite in DATA_DIR/pglite. */
  DATABASE_URL: optionalUrl,
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),

  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('platform'),
  TEMPORAL_UI_PORT: port(8233),
  TEMPORAL_UI_URL: optionalUrl,
  TEMPORAL_CLI_PATH: z.string().optional(),
  /** Embedded mode only: start a Temporal dev server (default) or use TEMPORAL_ADDRESS as it is. */
  TEMPORAL_EMBEDDED: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),

  /** Messaging carrier (SMPP 3.4 SMSC). */
  SMPP_URL: z.string().default('smpp://127.0.0.1:2775'),
  SMPP_SYSTEM_ID: z.string().default('platform'),
  SMPP_PASSWORD: z.string().default('sandbox'),
  SMPP_PORT: port(2775),
  /** Chat-app provider and HLR lookup provider (HTTP). */
  CHATAPP_URL: z.string().url().default('http://127.0.0.1:4010/chatapp'),
  HLR_URL: z.string().url().default('http://127.0.0.1:4010/hlr'),
  CHATAPP_API_KEY: z.string().min(1).default('sandbox-chatapp-key'),
  HLR_API_KEY: z.string().min(1).default('sandbox-hlr-key'),
  SANDBOX_HTTP_PORT: port(4010),

  /** How long a message waits for its delivery receipt before it is reported as expired. */
  SMS_RECEIPT_TIMEOUT: duration('48h'),
  /** How long a sender-ID registration waits for confirmation before it expires. */
  SENDER_ID_CONFIRMATION_TIMEOUT: duration('7d'),
  /** How long an HLR lookup keeps retrying an unavailable provider before the result is `lookup_failed`. */
  HLR_LOOKUP_TIMEOUT: duration('10m'),

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

  /**
   * Open-banking gateway: identity and signing (api/openbanking/identity.ts, activities/openbanking/jws.ts).
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
  /** The sandbox banks (XS2A 1.3 + hosted SCA page), started by `npm start` in sandbox mode. */
  SANDBOX_BANKS_PORT: port(4020),
  /** The sandbox merchant of the payment-collection gateway (notifications, billing). */
  SANDBOX_MERCHANT_PORT: port(4030),
  /**
   * Where a person's browser reaches the sandbox banks (their SCA page links, `_links.scaRedirect`);
   * default: the URL they listen at. The platform reaches them at its OPENBANKING_BANK_DIRECTORY_URL's
   * origin instead (docker-compose: browser http://localhost:4020, worker http://sandbox:4020).
   */
  SANDBOX_BANKS_PUBLIC_URL: optionalUrl,
  /**
   * `sandbox/main.ts` only: the API as the sandbox parties reach it (the sandbox merchant fetches the
   * notification key there); default PUBLIC_BASE_URL (docker-compose: http://api:3000).
   */
  SANDBOX_GATEWAY_URL: optionalUrl,

  /** Webhook retry delays after each failed attempt (first attempt is immediate). */
  WEBHOOK_RETRY_SCHEDULE: durationList('5s,5m,30m,2h,5h,10h,14h,20h,24h'),
  WEBHOOK_REQUEST_TIMEOUT: duration('15s'),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: { variable: string; message: string }[]) {
    super(
      `Invalid configuration:\n${problems.map((problem) => `  ${problem.variable}: ${problem.message}`).join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

/**
 * Keys that sandbox mode derives or generates for development but production must be given, checked
 * at start so a production process fails at once, not at its first merchant or token.
 */
const PRODUCTION_KEYS = [
  'COLLECT_SECRET_KEY',
  'COLLECT_SIGNING_KEY',
  'OPENBANKING_KEY_ENCRYPTION_KEY',
] as const;

const checkedConfigSchema = configSchema.superRefine((config, context) => {
  if (config.PLATFORM_MODE !== 'production') return;
  for (const key of PRODUCTION_KEYS) {
    if (!config[key])
      context.addIssue({ code: 'custom', path: [key], message: 'required when PLATFORM_MODE=production' });
  }
});

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const result = checkedConfigSchema.safeParse(env);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? '?'),
        message: issue.message,
      })),
    );
  }
  return {
    ...result.data,
    ...sandboxProviderUrls(env, result.data),
    DATA_DIR: path.resolve(result.data.DATA_DIR),
  };
}

/**
 * Unset, SMPP_URL, CHATAPP_URL and HLR_URL name the sandbox parties `npm start` runs on this machine:
 * they follow SMPP_PORT and SANDBOX_HTTP_PORT (a URL given explicitly is used as it is).
 */
function sandboxProviderUrls(env: NodeJS.ProcessEnv, config: Config) {
  const providers = `http://127.0.0.1:${config.SANDBOX_HTTP_PORT}`;
  return {
    SMPP_URL: env.SMPP_URL ? config.SMPP_URL : `smpp://127.0.0.1:${config.SMPP_PORT}`,
    CHATAPP_URL: env.CHATAPP_URL ? config.CHATAPP_URL : `${providers}/chatapp`,
    HLR_URL: env.HLR_URL ? config.HLR_URL : `${providers}/hlr`,
  };
}

/**
 * The scale-out processes (`npm run api`, `npm run worker`) share a PostgreSQL server; PGlite is
 * single-process and serves only the embedded stack. Exits naming the variable when it is missing.
 */
export function requireDatabaseUrl(config: Config, command: string): string {
  if (config.DATABASE_URL) return config.DATABASE_URL;
  console.error(
    `DATABASE_URL: required for \`${command}\` (PGlite is single-process; use \`npm start\` for it)`,
  );
  process.exit(78);
}

/** Loads configuration for an entry point; prints the problem and exits on a bad value. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}
