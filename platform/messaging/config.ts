import { z } from 'zod';
import { IN_DOUBT_ACTIONS } from '../../domain/messaging/in-doubt.ts';
import { LONG_MESSAGE_MODES } from '../../domain/messaging/segments.ts';
import { duration, port } from '../config-fields.ts';

/** The sandbox carriers' credentials (the defaults, which the sandbox parties accept): refused in production. */
export const SANDBOX_SMPP_PASSWORD = 'sandbox';
export const SANDBOX_CHATAPP_API_KEY = 'sandbox-chatapp-key';
export const SANDBOX_CHATAPP_APP_SECRET = 'sandbox-chatapp-app-secret';
export const SANDBOX_CHATAPP_VERIFY_TOKEN = 'sandbox-chatapp-verify-token';
/** The sandbox chat-app provider's business phone number id. */
export const SANDBOX_CHATAPP_PHONE_NUMBER_ID = '100000000000001';
export const SANDBOX_HLR_API_KEY = 'sandbox-hlr-key';
export const SANDBOX_HLR_API_SECRET = 'sandbox-hlr-secret';

/** Configuration of the messaging gateway: its carriers and process timeouts (docs/configuration.md). */
export const messagingConfig = z.object({
  /** Messaging carrier (SMPP 3.4 SMSC). */
  SMPP_URL: z.string().default('smpp://127.0.0.1:2775'),
  SMPP_SYSTEM_ID: z.string().default('platform'),
  SMPP_PASSWORD: z.string().default(SANDBOX_SMPP_PASSWORD),
  SMPP_PORT: port(2775),
  /**
   * How this bind sends a text longer than one segment (decision 0055): `message_payload` (the SMSC
   * splits it), `udh` (concatenated parts with a UDH) or `sar` (parts with SAR TLVs).
   */
  SMPP_LONG_MESSAGES: z.enum(LONG_MESSAGE_MODES).default('message_payload'),
  /** The UDH's concatenation reference in `udh` mode: 8-bit (IEI 0x00) or 16-bit (IEI 0x08). */
  SMPP_UDH_REFERENCE_BITS: z
    .enum(['8', '16'])
    .default('8')
    .transform((bits) => (bits === '8' ? 8 : 16) as 8 | 16),
  /**
   * How many submit_sm this bind keeps outstanding at most (SMPP's window): further submissions wait
   * for an answer. Per worker process, which holds one bind (decision 0074).
   */
  SMPP_WINDOW: z.coerce.number().int().min(1).max(1000).default(32),
  /**
   * Carriers and routes (decision 0079). MESSAGING_SECRET_KEY (64 hex characters) encrypts the
   * carriers' passwords at rest (a fixed development key outside production); SMS_CARRIER_BACKOFF is how
   * long a carrier that refused "not now" (throttled, system error) or could not be bound is skipped;
   * SMS_ROUTES_REFRESH how often a worker reads the carriers and routes again.
   */
  MESSAGING_SECRET_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (a 256-bit key)')
    .optional(),
  SMS_CARRIER_BACKOFF: duration('30s'),
  SMS_ROUTES_REFRESH: duration('5s'),
  /**
   * The sandbox's second SMSC (a failover target for carriers and routes); 0: 2776 beside the default
   * SMPP_PORT (a free port when that is taken or SMPP_PORT is another).
   */
  SANDBOX_SMPP_SECOND_PORT: port(0),
  /** Sandbox mode: the sandbox SMSC refuses `message_payload` (ESME_RINVTLVSTREAM), as some SMSCs do. */
  SANDBOX_SMSC_REFUSES_MESSAGE_PAYLOAD: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  /**
   * Chat-app provider: the WhatsApp Cloud API (decision 0062). CHATAPP_URL is the Graph API base with
   * its version (production: https://graph.facebook.com/v21.0), CHATAPP_API_KEY the access token,
   * CHATAPP_PHONE_NUMBER_ID the business number messages are sent from; CHATAPP_APP_SECRET keys the
   * `X-Hub-Signature-256` of the status webhooks, CHATAPP_VERIFY_TOKEN answers their subscription check.
   */
  CHATAPP_URL: z.string().url().default('http://127.0.0.1:4010/chatapp'),
  CHATAPP_API_KEY: z.string().min(1).default(SANDBOX_CHATAPP_API_KEY),
  CHATAPP_PHONE_NUMBER_ID: z
    .string()
    .regex(/^\d{1,30}$/, 'must be the phone number id (digits) of the WhatsApp Business Account')
    .default(SANDBOX_CHATAPP_PHONE_NUMBER_ID),
  CHATAPP_APP_SECRET: z.string().min(1).default(SANDBOX_CHATAPP_APP_SECRET),
  CHATAPP_VERIFY_TOKEN: z.string().min(1).default(SANDBOX_CHATAPP_VERIFY_TOKEN),
  /**
   * HLR lookup provider: the HLR Lookups API v2 of hlr-lookups.com (decision 0062). HLR_URL is the API
   * base (production: https://www.hlr-lookups.com/api/v2); HLR_API_KEY and HLR_API_SECRET sign each
   * request (Digest Auth).
   */
  HLR_URL: z.string().url().default('http://127.0.0.1:4010/hlr'),
  HLR_API_KEY: z.string().min(1).default(SANDBOX_HLR_API_KEY),
  HLR_API_SECRET: z.string().min(1).default(SANDBOX_HLR_API_SECRET),
  SANDBOX_HTTP_PORT: port(4010),

  /** How long a message waits for its delivery receipt before it is reported `unknown` (no receipt). */
  SMS_RECEIPT_TIMEOUT: duration('48h'),
  /** How long the hand-over to the carrier is retried before the message is reported as failed. */
  SMS_SUBMIT_TIMEOUT: duration('1h'),
  /**
   * What becomes of an SMS whose submit_sm went out but whose answer was lost in a crash (decision 0084):
   * `resubmit` (at least once) or `unknown` (final status `unknown`, never submitted twice); for ordinary
   * messages, and for messages flagged `containsCode` (one-time codes).
   */
  SMS_IN_DOUBT: z.enum(IN_DOUBT_ACTIONS).default('resubmit'),
  SMS_IN_DOUBT_CODES: z.enum(IN_DOUBT_ACTIONS).default('unknown'),
  /**
   * How long an API process holds accepted messages it is handing over to their workflows; after a crash,
   * another process takes them once it has passed (decision 0066).
   */
  MESSAGING_HANDOVER_LEASE: duration('30s'),
  /**
   * An SMS a handset sent that arrives again within this time, from and to the same numbers with the
   * same text through the same carrier, is the SMSC sending it again (its deliver_sm_resp was lost): one
   * inbound message, one event (decision 0087).
   */
  INBOUND_DUPLICATE_WINDOW: duration('10m'),
  /**
   * Up to how many SMS one workflow hands to the carrier and follows to their reports (decision 0074).
   * 0: a workflow per message, as before 0074 (kept for comparison). Scheduled and chat-app messages
   * always have a workflow of their own.
   */
  MESSAGING_BATCH_SIZE: z.coerce.number().int().min(0).max(500).default(64),
  /** How long the accepting API process gathers SMS into one batch before starting its workflow. */
  MESSAGING_BATCH_LINGER: duration('200ms'),
  /** How long a sender-ID registration waits for confirmation before it expires. */
  SENDER_ID_CONFIRMATION_TIMEOUT: duration('7d'),
  /** How long a confirmed sender ID waits for an operator's approval or rejection before it expires. */
  SENDER_ID_APPROVAL_TIMEOUT: duration('30d'),
  /** How long the code sent to a `from` number is valid, and how many wrong codes end it. */
  NUMBER_VERIFICATION_TIMEOUT: duration('10m'),
  NUMBER_VERIFICATION_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  /** The platform's own sender of the verification SMS. */
  NUMBER_VERIFICATION_SENDER: z.string().min(1).max(11).default('Verify'),
  /** How long an HLR lookup keeps retrying an unavailable provider before the result is `lookup_failed`. */
  HLR_LOOKUP_TIMEOUT: duration('10m'),
});

/**
 * Unset, SMPP_URL, CHATAPP_URL and HLR_URL name the sandbox parties `npm start` runs on this machine:
 * they follow SMPP_PORT and SANDBOX_HTTP_PORT (a URL given explicitly is used as it is).
 */
export function sandboxProviderUrls(env: NodeJS.ProcessEnv, config: z.infer<typeof messagingConfig>) {
  const providers = `http://127.0.0.1:${config.SANDBOX_HTTP_PORT}`;
  return {
    SMPP_URL: env.SMPP_URL ? config.SMPP_URL : `smpp://127.0.0.1:${config.SMPP_PORT}`,
    CHATAPP_URL: env.CHATAPP_URL ? config.CHATAPP_URL : `${providers}/chatapp`,
    HLR_URL: env.HLR_URL ? config.HLR_URL : `${providers}/hlr`,
  };
}

/**
 * Outside parties production must name explicitly: unset, they default to the sandbox's carriers and
 * credentials, so a production process would send real customers' messages to this machine's sandbox.
 */
export const messagingProductionVariables = [
  'SMPP_URL',
  'SMPP_SYSTEM_ID',
  'SMPP_PASSWORD',
  'CHATAPP_URL',
  'CHATAPP_API_KEY',
  'CHATAPP_PHONE_NUMBER_ID',
  'CHATAPP_APP_SECRET',
  'CHATAPP_VERIFY_TOKEN',
  'HLR_URL',
  'HLR_API_KEY',
  'HLR_API_SECRET',
] as const;

/** The carriers: in production not on loopback or private addresses (platform/production-parties.ts). */
export const messagingPartyUrls = ['SMPP_URL', 'CHATAPP_URL', 'HLR_URL'] as const;

/** Published sandbox credentials production refuses even when set explicitly. */
export const messagingSandboxValues = [
  { variable: 'SMPP_PASSWORD', value: SANDBOX_SMPP_PASSWORD, what: "the sandbox SMSC's published password" },
  {
    variable: 'CHATAPP_API_KEY',
    value: SANDBOX_CHATAPP_API_KEY,
    what: "the sandbox chat-app provider's published key",
  },
  {
    variable: 'CHATAPP_APP_SECRET',
    value: SANDBOX_CHATAPP_APP_SECRET,
    what: "the sandbox chat-app provider's published app secret",
  },
  {
    variable: 'CHATAPP_VERIFY_TOKEN',
    value: SANDBOX_CHATAPP_VERIFY_TOKEN,
    what: "the sandbox chat-app provider's published verify token",
  },
  { variable: 'HLR_API_KEY', value: SANDBOX_HLR_API_KEY, what: "the sandbox HLR provider's published key" },
  {
    variable: 'HLR_API_SECRET',
    value: SANDBOX_HLR_API_SECRET,
    what: "the sandbox HLR provider's published secret",
  },
] as const;
