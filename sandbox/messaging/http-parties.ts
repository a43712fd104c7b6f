import { createHash, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { all as allOperators, type Operator } from 'mcc-mnc-list';
import { handsetRoutes } from './handset.ts';
import type { SubmittedSms } from './smpp-carrier.ts';

/**
 * The simulated HTTP providers the messaging gateway talks to, on one port:
 *
 * - a chat-app provider under /chatapp: messages are queued, then reported `delivered` after
 *   `chatAppDelayMs`; a recipient ending in 0000 is not on the app → `failed` / `not_on_chatapp`.
 * - an HLR lookup provider under /hlr: answers are deterministic from the number, with real MCC/MNC
 *   codes of the number's country. Endings: 0000 → unknown_subscriber, 0001 → absent_subscriber,
 *   0002 → ported from another operator of the same country.
 * - a handset under /handset (sandbox/messaging/handset.ts), when given the SMSC's submissions: every SMS
 *   the sandbox SMSC accepted, per destination number, as a page and as JSON, like a provider's test console.
 *
 * The chat-app and HLR providers check `authorization: Bearer <key>` as real providers do; the handset is
 * open, like the rest of the sandbox, which production mode never starts.
 */
export interface HttpPartiesOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  chatAppDelayMs?: number;
  chatAppApiKey?: string;
  hlrApiKey?: string;
  /** The SMS the sandbox SMSC accepted, read at each request: served at /handset. */
  handset?: () => readonly SubmittedSms[];
}

export interface ChatAppSandboxMessage {
  id: string;
  to: string;
  from: string;
  text: string;
  idempotencyKey: string;
  acceptedAt: Date;
}

export interface SandboxHttpParties {
  url: string;
  port: number;
  /** Every chat-app message accepted (a replayed idempotency key adds nothing). */
  chatAppMessages: ChatAppSandboxMessage[];
  /** Every HLR lookup answered, as the msisdn asked for. */
  hlrLookups: string[];
  stop(): Promise<void>;
}

/** The defaults of CHATAPP_API_KEY and HLR_API_KEY in platform/config.ts. */
const DEFAULT_CHATAPP_KEY = 'sandbox-chatapp-key';
const DEFAULT_HLR_KEY = 'sandbox-hlr-key';

type ChatAppStatus = 'queued' | 'delivered' | 'failed';

export interface HlrSandboxAnswer {
  error: null | 'absent_subscriber' | 'unknown_subscriber';
  imsi: string | null;
  mcc: string | null;
  mnc: string | null;
  ported: string[];
}

function bearerKey(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  return match?.[1]?.trim();
}

const digitsOf = (value: string) => value.replace(/\D/g, '');

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

/** The HLR's view of one number; undefined when the number is not a valid number at all. */
export function hlrAnswerFor(msisdn: string): HlrSandboxAnswer | undefined {
  const parsed = parsePhoneNumberFromString(`+${msisdn}`);
  if (!parsed?.isValid() || !parsed.country) return undefined;
  const networks = mobileNetworksOf(parsed.country);
  if (networks.length === 0)
    return { error: 'unknown_subscriber', imsi: null, mcc: null, mnc: null, ported: [] };

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
    error: null,
    imsi: prefix + msin,
    mcc: serving.mcc,
    mnc: serving.mnc,
    ported: ported ? [origin.mcc + origin.mnc] : [],
  };
  if (msisdn.endsWith('0000')) return { ...answer, error: 'unknown_subscriber', imsi: null };
  if (msisdn.endsWith('0001')) return { ...answer, error: 'absent_subscriber' };
  return answer;
}

export async function startHttpParties(options: HttpPartiesOptions = {}): Promise<SandboxHttpParties> {
  const host = options.host ?? '127.0.0.1';
  const chatAppDelayMs = options.chatAppDelayMs ?? 1000;
  const chatAppKey = options.chatAppApiKey ?? DEFAULT_CHATAPP_KEY;
  const hlrKey = options.hlrApiKey ?? DEFAULT_HLR_KEY;

  const chatAppMessages: ChatAppSandboxMessage[] = [];
  const byId = new Map<string, ChatAppSandboxMessage>();
  const byIdempotencyKey = new Map<string, ChatAppSandboxMessage>();
  const hlrLookups: string[] = [];

  /** The outcome is a function of time: queued until the delay has passed, then final. */
  function chatAppStatusOf(message: ChatAppSandboxMessage) {
    const doneAt = new Date(message.acceptedAt.getTime() + chatAppDelayMs);
    if (Date.now() < doneAt.getTime()) return { id: message.id, status: 'queued' as ChatAppStatus };
    return digitsOf(message.to).endsWith('0000')
      ? {
          id: message.id,
          status: 'failed' as ChatAppStatus,
          error: 'not_on_chatapp',
          doneAt: doneAt.toISOString(),
        }
      : { id: message.id, status: 'delivered' as ChatAppStatus, doneAt: doneAt.toISOString() };
  }

  const app = new Hono();

  app.use('/chatapp/*', async (c, next) => {
    if (bearerKey(c.req.header('authorization')) !== chatAppKey)
      return c.json({ error: 'invalid_api_key' }, 401);
    return next();
  });
  app.use('/hlr/*', async (c, next) => {
    if (bearerKey(c.req.header('authorization')) !== hlrKey) return c.json({ error: 'invalid_api_key' }, 401);
    return next();
  });

  app.post('/chatapp/messages', async (c) => {
    const body: unknown = await c.req.json().catch(() => undefined);
    const field = (name: string) => {
      const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
      return typeof value === 'string' && value.length > 0 ? value : undefined;
    };
    const to = field('to');
    const from = field('from');
    const text = field('text');
    const idempotencyKey = field('idempotencyKey');
    if (!to || !from || !text || !idempotencyKey) {
      return c.json(
        { error: 'invalid_request', message: 'to, from, text and idempotencyKey are required' },
        400,
      );
    }
    if (!/^\+?\d{6,15}$/.test(to))
      return c.json({ error: 'invalid_recipient', message: 'to must be an MSISDN' }, 400);

    const previous = byIdempotencyKey.get(idempotencyKey);
    if (previous) return c.json(chatAppStatusOf(previous), 200);
    const message: ChatAppSandboxMessage = {
      id: randomUUID(),
      to,
      from,
      text,
      idempotencyKey,
      acceptedAt: new Date(),
    };
    chatAppMessages.push(message);
    byId.set(message.id, message);
    byIdempotencyKey.set(idempotencyKey, message);
    return c.json({ id: message.id, status: 'queued' }, 201);
  });

  app.get('/chatapp/messages/:id', (c) => {
    const message = byId.get(c.req.param('id'));
    if (!message) return c.json({ error: 'not_found' }, 404);
    return c.json(chatAppStatusOf(message), 200);
  });

  app.get('/hlr/lookup', (c) => {
    const msisdn = c.req.query('msisdn') ?? '';
    if (!/^\d{6,15}$/.test(msisdn)) {
      return c.json({ error: 'invalid_msisdn', message: 'msisdn must be E.164 digits without +' }, 400);
    }
    const answer = hlrAnswerFor(msisdn);
    if (!answer) return c.json({ error: 'invalid_msisdn', message: 'not a valid number' }, 400);
    hlrLookups.push(msisdn);
    return c.json(answer, 200);
  });

  if (options.handset) app.route('/handset', handsetRoutes(options.handset));

  app.notFound((c) => c.json({ error: 'not_found' }, 404));

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
    hlrLookups,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}
