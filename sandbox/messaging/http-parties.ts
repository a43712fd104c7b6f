import { createHash, createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { type CountryCode, getCountryCallingCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { all as allOperators, type Operator } from 'mcc-mnc-list';
import { type HandsetSend, handsetRoutes } from './handset.ts';
import type { SubmittedSms } from './smpp-carrier.ts';

/**
 * The simulated HTTP providers the messaging gateway talks to, on one port, each speaking a real
 * provider's published protocol (decision 0062):
 *
 * - a chat-app provider under /chatapp speaking the WhatsApp Cloud API (the Graph API host, with or
 *   without its version segment): `POST /chatapp/{version}/{phone-number-id}/messages` with a bearer
 *   access token, answered `{messaging_product, contacts, messages: [{id: "wamid..."}]}` or a Graph
 *   error object. Status events go to the subscribed webhook (subscribeChatAppWebhook, after its
 *   subscription check), signed `X-Hub-Signature-256` with the app secret: `sent` at once, then after
 *   `chatAppDelayMs` `delivered` and, as long again later, `read`; a recipient ending in 0000 is not on
 *   WhatsApp → `failed` with error 131026. A webhook not answered 200 is tried again a few times.
 * - an HLR lookup provider under /hlr speaking the HLR Lookups API v2 of hlr-lookups.com:
 *   `POST /hlr/hlr-lookup` with Digest Auth headers, answered with the API's lookup object. Answers are
 *   deterministic from the number, with real MCC/MNC codes of the number's country. Endings: 0000 →
 *   INVALID_MSISDN, 0001 → ABSENT, 0002 → ported from another operator of the same country.
 * - a handset under /handset (sandbox/messaging/handset.ts), when given the SMSC's submissions: every SMS
 *   the sandbox SMSC accepted, per destination number, as a page and as JSON, like a provider's test console.
 *
 * The chat-app and HLR providers authenticate every request as the real ones do; the handset is open,
 * like the rest of the sandbox, which production mode never starts.
 */
export interface HttpPartiesOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  chatAppDelayMs?: number;
  /** The access token the chat-app provider requires (CHATAPP_API_KEY). */
  chatAppApiKey?: string;
  /** The business number's id (CHATAPP_PHONE_NUMBER_ID). */
  chatAppPhoneNumberId?: string;
  /** The app secret the status webhooks are signed with (CHATAPP_APP_SECRET). */
  chatAppAppSecret?: string;
  /** The Digest Auth key and secret of the HLR provider (HLR_API_KEY, HLR_API_SECRET). */
  hlrApiKey?: string;
  hlrApiSecret?: string;
  /** The SMS the sandbox SMSC accepted, read at each request: served at /handset. */
  handset?: () => readonly SubmittedSms[];
  /** Makes the SMSC deliver an SMS a handset sent (POST /handset/{number}/send, decision 0087). */
  handsetSends?: HandsetSend;
}

export interface ChatAppSandboxMessage {
  /** The WhatsApp message id (`wamid.`...). */
  id: string;
  phoneNumberId: string;
  to: string;
  type: 'text' | 'template';
  /** The text, or the template's name. */
  text: string;
  /** What the sender put in `biz_opaque_callback_data` (the platform: its message id). */
  bizOpaqueCallbackData: string | undefined;
  acceptedAt: Date;
}

/** One status event the provider produced, and what became of its webhook delivery. */
export interface ChatAppSandboxStatus {
  messageId: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  /** The answers of the webhook to each attempt (empty while no webhook is subscribed). */
  attempts: number[];
}

export interface SandboxHttpParties {
  url: string;
  port: number;
  /** Every chat-app message accepted. */
  chatAppMessages: ChatAppSandboxMessage[];
  /** Every status event, in the order they were produced. */
  chatAppStatuses: ChatAppSandboxStatus[];
  /**
   * Configures the webhook as an operator does at Meta: the callback URL is checked at once (GET with
   * hub.mode=subscribe, the verify token and a challenge it must echo), then receives every status
   * event. Resolves false, and delivers nothing, when the check fails.
   */
  subscribeChatAppWebhook(webhook: { callbackUrl: string; verifyToken: string }): Promise<boolean>;
  /** Every HLR lookup answered, as the msisdn asked for (E.164 digits without +). */
  hlrLookups: string[];
  stop(): Promise<void>;
}

/** The defaults in platform/config.ts (the sandbox's published credentials). */
const DEFAULT_CHATAPP_KEY = 'sandbox-chatapp-key';
const DEFAULT_CHATAPP_PHONE_NUMBER_ID = '100000000000001';
const DEFAULT_CHATAPP_APP_SECRET = 'sandbox-chatapp-app-secret';
const DEFAULT_HLR_KEY = 'sandbox-hlr-key';
const DEFAULT_HLR_SECRET = 'sandbox-hlr-secret';
/** The sandbox's WhatsApp Business Account and its number as displayed. */
const WABA_ID = '100000000000000';
const DISPLAY_PHONE_NUMBER = '15550000001';
/** How far an HLR request's X-Digest-Timestamp may be from the sandbox's clock. */
const HLR_TIMESTAMP_SKEW_S = 300;
/** Webhook deliveries: attempts and the pause before each retry (a real provider keeps trying for days). */
const WEBHOOK_RETRY_DELAYS_MS = [250, 1000, 3000, 10_000];

export interface HlrSandboxAnswer {
  connectivity: 'CONNECTED' | 'ABSENT' | 'INVALID_MSISDN';
  imsi: string | null;
  serving: Operator;
  origin: Operator;
  ported: boolean;
}

function bearerKey(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  return match?.[1]?.trim();
}

const digitsOf = (value: string) => value.replace(/\D/g, '');

const sameSecret = (presented: string, expected: string) => {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** A number from the hash of the input, so answers repeat exactly for the same number. */
function hashNumber(value: string, salt: string): bigint {
  return BigInt(`0x${createHash('sha256').update(`${salt}:${value}`).digest('hex').slice(0, 15)}`);
}

/** Mobile networks of a country (rail-only GSM-R networks and withdrawn codes left out), one per MCC+MNC. */
function mobileNetworksOf(country: string): Operator[] {
  const seen = new Set<string>();
  return allOperators()
    .filter(
      (operator) =>
        operator.type === 'National' &&
        operator.status === 'Operational' &&
        (operator.countryCode ?? '').split('/').includes(country) &&
        !/GSM-R/.test(operator.bands ?? ''),
    )
    .filter((operator) => {
      const key = operator.mcc + operator.mnc;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/** The HLR's view of one number; undefined when it is not a valid mobile number of a known network. */
export function hlrAnswerFor(msisdn: string): HlrSandboxAnswer | undefined {
  const parsed = parsePhoneNumberFromString(`+${msisdn}`);
  if (!parsed?.isValid() || !parsed.country) return undefined;
  const networks = mobileNetworksOf(parsed.country);
  if (networks.length === 0) return undefined;

  const home = Number(hashNumber(msisdn, 'network') % BigInt(networks.length));
  const ported = msisdn.endsWith('0002') && networks.length > 1;
  // A ported number is served by another network than the one its number range belongs to.
  const serving = networks[ported ? (home + 1) % networks.length : home]!;
  const origin = networks[home]!;
  const prefix = serving.mcc + serving.mnc;
  const msin = hashNumber(msisdn, 'msin')
    .toString()
    .padStart(15, '0')
    .slice(0, 15 - prefix.length);
  const answer: HlrSandboxAnswer = {
    connectivity: 'CONNECTED',
    imsi: prefix + msin,
    serving,
    origin,
    ported,
  };
  if (msisdn.endsWith('0000')) return { ...answer, connectivity: 'INVALID_MSISDN', imsi: null };
  if (msisdn.endsWith('0001')) return { ...answer, connectivity: 'ABSENT' };
  return answer;
}

/** A network's name as the HLR API gives it: its brand, else its operator. */
const networkName = (operator: Operator) => operator.brand ?? operator.operator ?? null;

/** `2020-08-07 19:16:17.676+0000`, the API's timestamp form. */
const hlrTimestamp = (at: Date) => `${at.toISOString().replace('T', ' ').replace('Z', '')}+0000`;

export async function startHttpParties(options: HttpPartiesOptions = {}): Promise<SandboxHttpParties> {
  const host = options.host ?? '127.0.0.1';
  const chatAppDelayMs = options.chatAppDelayMs ?? 1000;
  const chatAppKey = options.chatAppApiKey ?? DEFAULT_CHATAPP_KEY;
  const phoneNumberId = options.chatAppPhoneNumberId ?? DEFAULT_CHATAPP_PHONE_NUMBER_ID;
  const appSecret = options.chatAppAppSecret ?? DEFAULT_CHATAPP_APP_SECRET;
  const hlrKey = options.hlrApiKey ?? DEFAULT_HLR_KEY;
  const hlrSecret = options.hlrApiSecret ?? DEFAULT_HLR_SECRET;

  const chatAppMessages: ChatAppSandboxMessage[] = [];
  const chatAppStatuses: ChatAppSandboxStatus[] = [];
  const hlrLookups: string[] = [];
  let webhook: { callbackUrl: string; verifyToken: string } | undefined;
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopped) run();
    }, ms);
    timers.add(timer);
  };

  // --- WhatsApp Cloud API ------------------------------------------------------------------------

  const fbtraceId = () => randomBytes(8).toString('base64url');
  /** A Graph API error answer. */
  const graphError = (
    c: Context,
    status: 400 | 401 | 404,
    error: { message: string; type: string; code: number; error_subcode?: number; details?: string },
  ) =>
    c.json(
      {
        error: {
          message: error.message,
          type: error.type,
          code: error.code,
          ...(error.error_subcode !== undefined ? { error_subcode: error.error_subcode } : {}),
          ...(error.details ? { error_data: { messaging_product: 'whatsapp', details: error.details } } : {}),
          fbtrace_id: fbtraceId(),
        },
      },
      status,
    );
  const invalidParameter = (c: Context, details: string) =>
    graphError(c, 400, { message: '(#100) Invalid parameter', type: 'OAuthException', code: 100, details });

  /** The signed notification of one status, as the Cloud API POSTs it. */
  function notificationOf(message: ChatAppSandboxMessage, status: ChatAppSandboxStatus['status']) {
    const waId = digitsOf(message.to);
    return {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: WABA_ID,
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: {
                  display_phone_number: DISPLAY_PHONE_NUMBER,
                  phone_number_id: message.phoneNumberId,
                },
                statuses: [
                  {
                    id: message.id,
                    status,
                    timestamp: String(Math.floor(Date.now() / 1000)),
                    recipient_id: waId,
                    ...(message.bizOpaqueCallbackData
                      ? { biz_opaque_callback_data: message.bizOpaqueCallbackData }
                      : {}),
                    ...(status === 'failed'
                      ? {
                          errors: [
                            {
                              code: 131026,
                              title: 'Message undeliverable',
                              message: 'Message undeliverable',
                              error_data: { details: 'The recipient is not a WhatsApp user' },
                            },
                          ],
                        }
                      : {
                          conversation: {
                            id: createHash('sha256')
                              .update(`conversation:${waId}`)
                              .digest('hex')
                              .slice(0, 32),
                            origin: { type: 'service' },
                          },
                          pricing: { billable: false, pricing_model: 'CBP', category: 'service' },
                        }),
                  },
                ],
              },
            },
          ],
        },
      ],
    };
  }

  let verified: string | undefined;
  /** The subscription check a provider makes of a callback URL: GET, and the challenge echoed. */
  async function verifyWebhook(target: { callbackUrl: string; verifyToken: string }): Promise<boolean> {
    if (verified === target.callbackUrl) return true;
    const challenge = String(randomInt(1, 2 ** 31 - 1));
    const url = new URL(target.callbackUrl);
    url.searchParams.set('hub.mode', 'subscribe');
    url.searchParams.set('hub.verify_token', target.verifyToken);
    url.searchParams.set('hub.challenge', challenge);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
      const ok = response.status === 200 && (await response.text()) === challenge;
      if (ok) verified = target.callbackUrl;
      return ok;
    } catch {
      return false;
    }
  }

  async function deliver(record: ChatAppSandboxStatus, body: string, attempt: number): Promise<void> {
    const target = webhook;
    if (!target || stopped) return;
    let status = 0;
    if (await verifyWebhook(target)) {
      try {
        const response = await fetch(target.callbackUrl, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-hub-signature-256': `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`,
          },
          body,
          signal: AbortSignal.timeout(5000),
        });
        status = response.status;
        await response.body?.cancel();
      } catch {
        status = 0;
      }
    }
    record.attempts.push(status);
    const pause = WEBHOOK_RETRY_DELAYS_MS[attempt];
    if (status !== 200 && pause !== undefined) later(pause, () => void deliver(record, body, attempt + 1));
  }

  function emit(message: ChatAppSandboxMessage, status: ChatAppSandboxStatus['status']) {
    const record: ChatAppSandboxStatus = { messageId: message.id, status, attempts: [] };
    chatAppStatuses.push(record);
    void deliver(record, JSON.stringify(notificationOf(message, status)), 0);
  }

  const app = new Hono();

  app.use('/chatapp/*', async (c, next) => {
    const token = bearerKey(c.req.header('authorization'));
    if (!token || !sameSecret(token, chatAppKey)) {
      return graphError(c, 401, {
        message: token
          ? 'Invalid OAuth access token - Cannot parse access token'
          : 'An active access token must be used to query information about the current user.',
        type: 'OAuthException',
        code: token ? 190 : 2500,
      });
    }
    return next();
  });

  const sendMessage = async (c: Context) => {
    const id = c.req.param('phoneNumberId');
    if (id !== phoneNumberId) {
      return graphError(c, 400, {
        message: `Unsupported post request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
        type: 'GraphMethodException',
        code: 100,
        error_subcode: 33,
      });
    }
    const body: unknown = await c.req.json().catch(() => undefined);
    if (!body || typeof body !== 'object')
      return invalidParameter(c, 'The request body must be a JSON object');
    const fields = body as Record<string, unknown>;
    if (fields.messaging_product !== 'whatsapp')
      return invalidParameter(c, 'The parameter messaging_product is required and must be "whatsapp"');
    if (fields.recipient_type !== undefined && fields.recipient_type !== 'individual')
      return invalidParameter(c, 'recipient_type must be "individual"');
    const to = typeof fields.to === 'string' ? fields.to : '';
    if (!/^\+?\d{6,15}$/.test(to)) return invalidParameter(c, 'The parameter to must be a phone number');
    const opaque = fields.biz_opaque_callback_data;
    if (opaque !== undefined && (typeof opaque !== 'string' || opaque.length > 512))
      return invalidParameter(c, 'biz_opaque_callback_data must be a string of at most 512 characters');
    let text: string;
    const type = fields.type ?? 'text';
    if (type === 'text') {
      const content = fields.text as { body?: unknown } | undefined;
      if (typeof content?.body !== 'string' || content.body.length === 0 || content.body.length > 4096)
        return invalidParameter(c, 'text.body is required, 1 to 4096 characters');
      text = content.body;
    } else if (type === 'template') {
      const template = fields.template as { name?: unknown; language?: { code?: unknown } } | undefined;
      if (typeof template?.name !== 'string' || typeof template.language?.code !== 'string')
        return invalidParameter(c, 'template.name and template.language.code are required');
      text = template.name;
    } else {
      return invalidParameter(c, 'The sandbox sends messages of type text and template');
    }

    const message: ChatAppSandboxMessage = {
      id: `wamid.${randomBytes(24).toString('base64url')}`,
      phoneNumberId: id,
      to,
      type,
      text,
      bizOpaqueCallbackData: typeof opaque === 'string' ? opaque : undefined,
      acceptedAt: new Date(),
    };
    chatAppMessages.push(message);
    // What happens on the phone: sent now, then delivered and read, or failed for a number not on WhatsApp.
    later(Math.min(50, chatAppDelayMs), () => emit(message, 'sent'));
    if (digitsOf(to).endsWith('0000')) {
      later(chatAppDelayMs, () => emit(message, 'failed'));
    } else {
      later(chatAppDelayMs, () => emit(message, 'delivered'));
      later(2 * chatAppDelayMs, () => emit(message, 'read'));
    }
    return c.json(
      {
        messaging_product: 'whatsapp',
        contacts: [{ input: to, wa_id: digitsOf(to) }],
        messages: [{ id: message.id }],
      },
      200,
    );
  };
  app.post('/chatapp/:version{v\\d+\\.\\d+}/:phoneNumberId/messages', sendMessage);
  app.post('/chatapp/:phoneNumberId/messages', sendMessage);

  // --- HLR Lookups API v2 (hlr-lookups.com) -------------------------------------------------------

  app.post('/hlr/hlr-lookup', async (c) => {
    const key = c.req.header('x-digest-key') ?? '';
    const timestamp = c.req.header('x-digest-timestamp') ?? '';
    const signature = c.req.header('x-digest-signature') ?? '';
    const raw = await c.req.text();
    const expected = createHmac('sha256', hlrSecret)
      .update(`/hlr-lookup${timestamp}POST${raw}`)
      .digest('hex');
    const fresh =
      /^\d+$/.test(timestamp) && Math.abs(Date.now() / 1000 - Number(timestamp)) <= HLR_TIMESTAMP_SKEW_S;
    if (!sameSecret(key, hlrKey) || !fresh || !sameSecret(signature.toLowerCase(), expected)) {
      return c.json({ errors: [{ code: 'UNAUTHORIZED', message: 'Invalid Digest Auth credentials' }] }, 401);
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return c.json({ errors: [{ code: 'INVALID_JSON', message: 'The body is not JSON' }] }, 400);
    }
    const msisdn = (body as { msisdn?: unknown } | null)?.msisdn;
    if (typeof msisdn !== 'string' || !/^\+?\d{6,15}$/.test(msisdn)) {
      return c.json(
        { errors: [{ code: 'INVALID_MSISDN', message: 'msisdn must be a number in international format' }] },
        400,
      );
    }
    const digits = digitsOf(msisdn);
    hlrLookups.push(digits);
    const found = hlrAnswerFor(digits);
    const now = new Date();
    const country = (operator: Operator | undefined) => {
      const code = operator?.countryCode?.split('/')[0] ?? null;
      const prefix = code ? getCountryCallingCode(code as CountryCode) : undefined;
      return {
        code,
        name: operator?.countryName ?? null,
        prefix: prefix ? `+${prefix}` : null,
      };
    };
    const origin = country(found?.origin);
    const serving = country(found?.serving);
    const imsi = found?.imsi ?? null;
    const network = found && found.connectivity !== 'INVALID_MSISDN' ? found.serving : undefined;
    return c.json(
      {
        id: randomBytes(6).toString('hex'),
        msisdn: `+${digits}`,
        connectivity_status: found?.connectivity ?? 'INVALID_MSISDN',
        mccmnc: network ? network.mcc + network.mnc : null,
        mcc: network?.mcc ?? null,
        mnc: network?.mnc ?? null,
        imsi,
        msin: imsi && network ? imsi.slice((network.mcc + network.mnc).length) : null,
        msc: network
          ? `${origin.prefix?.slice(1) ?? ''}${String(hashNumber(digits, 'msc')).slice(0, 9)}`
          : null,
        original_network_name: found ? networkName(found.origin) : null,
        original_country_name: origin.name,
        original_country_code: origin.code,
        original_country_prefix: origin.prefix,
        is_ported: found?.ported ?? false,
        ported_network_name: found?.ported ? networkName(found.serving) : null,
        ported_country_name: found?.ported ? serving.name : null,
        ported_country_code: found?.ported ? serving.code : null,
        ported_country_prefix: found?.ported ? serving.prefix : null,
        is_roaming: false,
        roaming_network_name: null,
        roaming_country_name: null,
        roaming_country_code: null,
        roaming_country_prefix: null,
        cost: '0.0100',
        timestamp: hlrTimestamp(now),
        storage: `SYNC-API-${now.toISOString().slice(0, 7)}`,
        route: 'IP1',
        processing_status: 'COMPLETED',
        error_code: null,
        data_source: 'LIVE_HLR',
      },
      200,
    );
  });

  if (options.handset) app.route('/handset', handsetRoutes(options.handset, options.handsetSends));

  app.notFound((c) =>
    c.req.path.startsWith('/chatapp/')
      ? graphError(c, 404, { message: 'Unknown path components', type: 'OAuthException', code: 2500 })
      : c.json({ error: 'not_found' }, 404),
  );

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const started = serve({ fetch: app.fetch, port: options.port ?? 0, hostname: host }, () =>
      resolve(started),
    );
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    chatAppMessages,
    chatAppStatuses,
    async subscribeChatAppWebhook(target) {
      verified = undefined;
      webhook = target;
      return verifyWebhook(target);
    },
    hlrLookups,
    stop: () =>
      new Promise<void>((resolve) => {
        stopped = true;
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}
