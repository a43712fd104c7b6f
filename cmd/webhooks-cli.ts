import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { checksumMatches, parseNotification, signatureMatches } from '../domain/epay-merchant.ts';
import { RecentDeliveries } from '../domain/webhooks/recent-deliveries.ts';
import { verifyWebhook } from '../domain/webhooks/signature.ts';
import { readSandboxParties } from './sandbox-parties.ts';

/**
 * Webhook tooling for developers, against a running platform (sandbox or development):
 *   npm run webhooks -- listen --forward-to http://localhost:8080/hooks
 *       [--service messaging|openbanking|lending|collect] [--events message.status,lookup.result] [--port 0]
 *       [--min D100000001]
 *
 * `listen` opens a receiver on loopback, registers it as a temporary webhook endpoint of the caller
 * (`POST <service>/webhooks/endpoints`), verifies every delivery's Standard Webhooks signature with the
 * endpoint's secret, forwards the exact body and the signature headers to `--forward-to`, answers the
 * platform with the forward target's status (so a failing local app sees the platform's retries), and
 * prints one line per event. Ctrl-C (SIGINT) or SIGTERM deletes the endpoint. A delivery whose
 * `webhook-id` was already forwarded (a replay; one of the last REMEMBERED_DELIVERIES) is acknowledged
 * and dropped; a retry of one the forward target failed goes through.
 *
 * Callbacks go to the URL given with each request (`dlrUrl`, `callBackUrl`, a hook's `url`): use the
 * printed URL there; lending's events go to every endpoint of the tenant, so there is nothing to name.
 * `--events` filters on this side: other events are acknowledged and not forwarded.
 * SMS sent to the account's numbers go to each number's inbound URL (decision 0087): with `--events`
 * naming `message.inbound`, the listener points every number of the account at itself
 * (`PUT /messaging/inbound/numbers/{number}`) and puts each one's URL back when it stops.
 *
 * Credentials: messaging takes the access token from AT (default: DATA_DIR/sandbox-token, written by
 * `npm start`); open banking the agent hash from AGENT_HASH (`x-agent-hash`); lending a Management key
 * from LENDER_API_KEY (`lender_ApiKey`; default: the sandbox tenant's, in DATA_DIR/sandbox-parties.json,
 * written by `npm start`). API_URL overrides the API
 * (default: the one in DATA_DIR/sandbox-parties.json, else http://127.0.0.1:$PORT or 3000).
 *
 * `--service collect` listens as a payment-collection merchant instead (listenCollect below): the
 * gateway's notifications (ENCODED, CHECKSUM, SIGNATURE) are a merchant's, sent to its notification URL.
 */

type Service = 'messaging' | 'openbanking' | 'lending';

interface Endpoint {
  id: string;
  url: string;
  secret: string;
}

const USAGE =
  'usage: npm run webhooks -- listen --forward-to <url> [--service messaging|openbanking|lending] ' +
  '[--events type,type] [--port <port>]\n' +
  '       npm run webhooks -- listen --service collect --forward-to <url> [--min <MIN>] [--port <port>]';

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

function apiUrlOf(dataDir: string): string {
  return (
    process.env.API_URL ??
    readSandboxParties(dataDir)?.apiUrl ??
    `http://127.0.0.1:${process.env.PORT ?? 3000}`
  );
}

/** How to authenticate to the service's webhook routes: query parameters and headers. */
function credentialOf(service: Service, dataDir: string): { query: string; headers: Record<string, string> } {
  if (service === 'openbanking') {
    const agentHash = process.env.AGENT_HASH ?? fail('open banking: set AGENT_HASH (your x-agent-hash).');
    return { query: '', headers: { 'x-agent-hash': agentHash } };
  }
  if (service === 'lending') {
    const apiKey =
      process.env.LENDER_API_KEY ??
      readSandboxParties(dataDir)?.lending.keys.management ??
      fail(
        'lending: set LENDER_API_KEY (a Management lender_ApiKey), or start the platform with `npm start`.',
      );
    return { query: '', headers: { lender_ApiKey: apiKey } };
  }
  let token = process.env.AT;
  if (!token) {
    const file = path.join(dataDir, 'sandbox-token');
    try {
      token = readFileSync(file, 'utf8').trim();
    } catch {
      fail(`No access token: set AT, or start the platform with \`npm start\` first (it writes ${file}).`);
    }
  }
  return { query: `at=${encodeURIComponent(token)}`, headers: {} };
}

/** A service's webhook routes, authenticated as the caller. */
function webhookApi(apiUrl: string, service: Service, dataDir: string) {
  const credential = credentialOf(service, dataDir);
  return async (method: string, route: string, body?: unknown): Promise<Response> => {
    const url = `${apiUrl}/${service}${route}${credential.query ? `?${credential.query}` : ''}`;
    return fetch(url, {
      method,
      headers: {
        ...credential.headers,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  };
}

type WebhookApi = ReturnType<typeof webhookApi>;

/**
 * Points each of the account's inbound numbers at the listener (decision 0087); answers what puts their
 * URLs back. A listener killed with SIGKILL leaves them on its dead port until set again.
 */
async function pointInboundNumbers(api: WebhookApi, url: string): Promise<(signal: string) => Promise<void>> {
  const listed = await api('GET', '/inbound/numbers');
  if (listed.status !== 200) fail(`Could not list the inbound numbers (HTTP ${listed.status})`);
  const { items } = (await listed.json()) as { items: { number: string }[] };
  const previous = new Map<string, string | null>();
  for (const { number } of items) {
    const pointed = await api('PUT', `/inbound/numbers/${encodeURIComponent(number)}`, { inboundUrl: url });
    if (pointed.status !== 200) {
      console.log(`Could not point ${number} at the listener (HTTP ${pointed.status})`);
      continue;
    }
    previous.set(
      number,
      ((await pointed.json()) as { previousInboundUrl: string | null }).previousInboundUrl,
    );
  }
  console.log(
    previous.size > 0
      ? `SMS to ${[...previous.keys()].join(', ')} come here (message.inbound) until the listener stops.`
      : 'The account has no inbound numbers: no message.inbound will come.',
  );
  return async (signal) => {
    for (const [number, inboundUrl] of previous) {
      const restored = await api('PUT', `/inbound/numbers/${encodeURIComponent(number)}`, {
        inboundUrl,
      }).catch(() => undefined);
      console.log(
        restored?.status === 200
          ? `${signal}: restored ${number}'s inbound URL: ${inboundUrl ?? '(none)'}`
          : `${signal}: could not restore ${number}'s inbound URL (HTTP ${restored?.status ?? 'unreachable'})`,
      );
    }
  };
}

/** The event type of a delivery: `type` of a Standard Webhooks JSON body, or of a compact JWS's payload. */
function eventTypeOf(body: string): string {
  try {
    const parts = body.split('.');
    const json =
      parts.length === 3 && !body.trimStart().startsWith('{')
        ? Buffer.from(parts[1] ?? '', 'base64url').toString('utf8')
        : body;
    const parsed = JSON.parse(json) as { type?: unknown; event?: unknown };
    const type = parsed.type ?? parsed.event;
    return typeof type === 'string' ? type : 'unknown';
  } catch {
    return 'unknown';
  }
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** A receiver on 127.0.0.1 (`port` 0: any free one) and its URL: a random path per run. */
async function serveLoopback(
  port: number,
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      console.error(error);
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const address = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${address.port}/listen/${randomBytes(8).toString('hex')}` };
}

/** The message of a failed fetch (its cause when there is one: `ECONNREFUSED`...). */
const fetchFailure = (error: unknown) => String((error as Error).cause ?? (error as Error).message);

const FORWARDED_HEADERS = ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/** How many forwarded `webhook-id`s the listener remembers to drop their replays (the oldest go first). */
const REMEMBERED_DELIVERIES = 10_000;

async function listen(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'forward-to': { type: 'string' },
      service: { type: 'string', default: 'messaging' },
      events: { type: 'string' },
      port: { type: 'string', default: '0' },
      min: { type: 'string' },
    },
  });
  const forwardTo = values['forward-to'] ?? fail(USAGE);
  if (!URL.canParse(forwardTo)) fail(`--forward-to: not a URL: ${forwardTo}`);
  const service = values.service;
  if (service === 'collect' && values.events !== undefined) fail('--events: not with --service collect');
  if (service === 'collect') return listenCollect({ forwardTo, port: Number(values.port), min: values.min });
  if (values.min !== undefined) fail('--min: only with --service collect');
  if (service !== 'messaging' && service !== 'openbanking' && service !== 'lending')
    fail(`--service: messaging, openbanking, lending or collect, not ${service}`);
  const events = values.events
    ?.split(',')
    .map((type) => type.trim())
    .filter(Boolean);
  const dataDir = path.resolve(process.env.DATA_DIR ?? 'data');
  const api = webhookApi(apiUrlOf(dataDir), service, dataDir);

  let endpoint: Endpoint | undefined;
  const recent = new RecentDeliveries(REMEMBERED_DELIVERIES);
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const raw = await readBody(request);
    const body = raw.toString('utf8');
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    };
    const id = header('webhook-id') ?? '-';
    const type = eventTypeOf(body);
    const line = (outcome: string) => console.log(`${new Date().toISOString()}  ${type}  ${id}  ${outcome}`);
    if (!endpoint || request.url !== new URL(endpoint.url).pathname) {
      response.writeHead(404).end();
      return;
    }
    const verification = verifyWebhook(
      endpoint.secret,
      {
        'webhook-id': header('webhook-id'),
        'webhook-timestamp': header('webhook-timestamp'),
        'webhook-signature': header('webhook-signature'),
      },
      body,
    );
    if (!verification.valid) {
      line(`rejected: signature ${verification.reason}`);
      response.writeHead(400).end();
      return;
    }
    if (events && !events.includes(type)) {
      line('skipped (--events)');
      response.writeHead(200).end();
      return;
    }
    // A verified id: the signature checked it, so a replay cannot change it.
    const seen = recent.claim(id);
    if (seen !== 'new') {
      line(
        seen === 'handled' ? 'dropped: webhook-id already forwarded' : 'dropped: webhook-id being forwarded',
      );
      response.writeHead(seen === 'handled' ? 200 : 409).end();
      return;
    }
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_HEADERS) {
      const value = header(name);
      if (value !== undefined) headers[name] = value;
    }
    try {
      const forwarded = await fetch(forwardTo, { method: 'POST', headers, body: raw });
      await forwarded.body?.cancel();
      recent.settle(id, forwarded.ok);
      line(`→ ${forwarded.status}`);
      response.writeHead(forwarded.status).end();
    } catch (error) {
      recent.settle(id, false);
      line(`→ failed (${fetchFailure(error)})`);
      response.writeHead(502).end();
    }
  };
  const { server, url } = await serveLoopback(Number(values.port), handle);

  const created = await api('POST', '/webhooks/endpoints', { url }).catch((error: unknown) =>
    fail(`Cannot reach the API: ${fetchFailure(error)}`),
  );
  if (created.status !== 201 && created.status !== 200) {
    server.close();
    fail(`Could not register the endpoint (HTTP ${created.status}): ${await created.text()}`);
  }
  endpoint = (await created.json()) as Endpoint;
  const restoreInbound =
    service === 'messaging' && events?.includes('message.inbound')
      ? await pointInboundNumbers(api, endpoint.url)
      : async () => {};

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    await restoreInbound(signal);
    const deleted = await api('DELETE', `/webhooks/endpoints/${endpoint?.id}`).catch(() => undefined);
    console.log(
      deleted?.status === 204
        ? `${signal}: deleted endpoint ${endpoint?.id}`
        : `${signal}: could not delete endpoint ${endpoint?.id} (HTTP ${deleted?.status ?? 'unreachable'})`,
    );
    server.close();
    server.closeAllConnections();
    process.exit(deleted?.status === 204 ? 0 : 1);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  console.log(`Ready. Endpoint ${endpoint.id}: ${endpoint.url}`);
  console.log(`Signing secret (verify forwarded requests with it): ${endpoint.secret}`);
  console.log(
    `${USE_THE_URL[service]}; forwarding${events ? ` ${events.join(', ')}` : ''} to ${forwardTo}. Ctrl-C deletes the endpoint.`,
  );
  console.log(
    `Replays are dropped: a delivery whose webhook-id is one of the last ${REMEMBERED_DELIVERIES} forwarded ` +
      'webhook-ids is answered 200 and not forwarded again (a retry of a failed one is forwarded).',
  );
}

/** Where a service's callbacks name the listener's URL. */
const USE_THE_URL: Record<Service, string> = {
  messaging: 'Use the URL as dlrUrl / callBackUrl',
  openbanking: 'Use the URL as the hook url (createhook)',
  lending: "Every event of the tenant's loans comes here",
};

/** What a collect notification carries to the merchant, forwarded as received. */
const COLLECT_FORWARDED_HEADERS = ['content-type', 'user-agent'] as const;

/**
 * `listen --service collect`: a payment-collection merchant's notifications on the developer's laptop.
 * The merchant (`--min`, secret from COLLECT_SECRET; default: the sandbox merchant of
 * DATA_DIR/sandbox-parties.json) has its notification URL pointed at the loopback receiver for the session
 * (`PATCH /admin/collect/merchants/{min}` with ADMIN_TOKEN, default the sandbox's), and back to the
 * previous one on SIGINT / SIGTERM. Each POST's CHECKSUM (merchant secret) and SIGNATURE (the gateway's
 * key from /collect/.well-known/notification-key.pem) are verified as a merchant does; a verified one is
 * forwarded byte for byte, and the gateway gets the forward target's status and `INVOICE=..:STATUS=..`
 * answer, so its retries follow what the local app answers.
 */
async function listenCollect(options: { forwardTo: string; port: number; min: string | undefined }) {
  const dataDir = path.resolve(process.env.DATA_DIR ?? 'data');
  const parties = readSandboxParties(dataDir);
  const apiUrl = apiUrlOf(dataDir);
  const min =
    options.min ??
    parties?.collect.min ??
    fail(`collect: give --min, or start the platform with \`npm start\` (the sandbox merchant).`);
  const secret =
    process.env.COLLECT_SECRET ??
    (min === parties?.collect.min ? parties.collect.secret : undefined) ??
    fail(`collect: set COLLECT_SECRET to the secret of merchant ${min}.`);
  const adminToken =
    process.env.ADMIN_TOKEN ??
    parties?.adminToken ??
    fail('collect: set ADMIN_TOKEN (the operator token; `npm start` writes the sandbox one).');

  const keyUrl = `${apiUrl}/collect/.well-known/notification-key.pem`;
  let keyPem: string | undefined;
  const gatewayKey = async (refresh: boolean) => {
    if (keyPem && !refresh) return keyPem;
    const response = await fetch(keyUrl).catch(() => undefined);
    if (response?.ok) keyPem = await response.text();
    return keyPem;
  };
  const signatureValid = async (encoded: string, signature: string) => {
    const check = (pem: string | undefined) => pem !== undefined && signatureMatches(pem, encoded, signature);
    // A failure with the cached key is checked once more with a fresh one (the key may have rotated).
    return check(await gatewayKey(false)) || check(await gatewayKey(true));
  };
  const pointNotifications = (notifyUrl: string | null) =>
    fetch(`${apiUrl}/admin/collect/merchants/${min}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ notifyUrl }),
    });

  let listenPath: string | undefined;
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'POST' || request.url !== listenPath) {
      response.writeHead(404).end();
      return;
    }
    const raw = await readBody(request);
    const form = new URLSearchParams(raw.toString('utf8'));
    const encoded = form.get('ENCODED') ?? '';
    const lines = parseNotification(encoded);
    const print = (outcome: (invoice: string) => string) => {
      const at = new Date().toISOString();
      if (lines.length === 0) console.log(`${at}  (no invoice line)  ${outcome('')}`);
      for (const line of lines)
        console.log(`${at}  INVOICE=${line.invoice}  ${line.status}  ${outcome(line.invoice)}`);
    };
    const refuse = (what: string) => {
      print(() => `rejected: ${what}`);
      // As ePay's sample receiver: a packet failing its checks is refused as a whole.
      response.writeHead(200, { 'content-type': 'text/plain' }).end(`ERR=Not valid ${what}\n`);
    };
    if (!checksumMatches(secret, encoded, form.get('CHECKSUM') ?? '')) return refuse('CHECKSUM');
    if (!(await signatureValid(encoded, form.get('SIGNATURE') ?? ''))) return refuse('SIGNATURE');

    const headers: Record<string, string> = {};
    for (const name of COLLECT_FORWARDED_HEADERS) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    try {
      const forwarded = await fetch(options.forwardTo, {
        method: 'POST',
        headers,
        body: raw,
        redirect: 'manual',
      });
      const answer = await forwarded.text();
      const replies = new Map<string, string>();
      for (const line of answer.split(/\r?\n/)) {
        const match = /^INVOICE=([^:]+):STATUS=(\w+)/.exec(line.trim());
        if (match?.[1] && match[2]) replies.set(match[1], match[2]);
      }
      print((invoice) => `→ ${forwarded.status} ${replies.get(invoice) ?? '(no answer line)'}`);
      response
        .writeHead(forwarded.status, {
          'content-type': forwarded.headers.get('content-type') ?? 'text/plain',
        })
        .end(answer);
    } catch (error) {
      print(() => `→ failed (${fetchFailure(error)})`);
      response.writeHead(502).end();
    }
  };
  const { server, url } = await serveLoopback(options.port, handle);
  listenPath = new URL(url).pathname;

  const pointed = await pointNotifications(url).catch((error: unknown) =>
    fail(`Cannot reach the API: ${fetchFailure(error)}`),
  );
  if (pointed.status !== 200) {
    server.close();
    fail(
      `Could not point merchant ${min}'s notifications here (HTTP ${pointed.status}): ${await pointed.text()}`,
    );
  }
  const { previousNotifyUrl } = (await pointed.json()) as { previousNotifyUrl: string | null };
  if (!(await gatewayKey(false))) console.error(`Warning: could not read the gateway's key at ${keyUrl}.`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const restored = await pointNotifications(previousNotifyUrl).catch(() => undefined);
    console.log(
      restored?.status === 200
        ? `${signal}: restored merchant ${min}'s notification URL: ${previousNotifyUrl ?? '(none)'}`
        : `${signal}: could not restore merchant ${min}'s notification URL ${previousNotifyUrl ?? '(none)'} ` +
            `(HTTP ${restored?.status ?? 'unreachable'})`,
    );
    server.close();
    server.closeAllConnections();
    process.exit(restored?.status === 200 ? 0 : 1);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  console.log(`Ready. Merchant ${min}'s notifications: ${url} (was ${previousNotifyUrl ?? 'none'})`);
  console.log(
    `Verifying CHECKSUM and SIGNATURE, forwarding to ${options.forwardTo}. Ctrl-C restores the notification URL.`,
  );
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'listen') await listen(rest);
else fail(USAGE);
