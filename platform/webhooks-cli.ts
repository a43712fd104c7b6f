import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { verifyWebhook } from '../domain/webhooks/signature.ts';
import { readSandboxParties } from './sandbox-parties.ts';

/**
 * Webhook tooling for developers, against a running platform (sandbox or development):
 *   npm run webhooks -- listen --forward-to http://localhost:8080/hooks
 *       [--service messaging|openbanking] [--events message.status,lookup.result] [--port 0]
 *
 * `listen` opens a receiver on loopback, registers it as a temporary webhook endpoint of the caller
 * (`POST <service>/webhooks/endpoints`), verifies every delivery's Standard Webhooks signature with the
 * endpoint's secret, forwards the exact body and the signature headers to `--forward-to`, answers the
 * platform with the forward target's status (so a failing local app sees the platform's retries), and
 * prints one line per event. Ctrl-C (SIGINT) or SIGTERM deletes the endpoint.
 *
 * Callbacks go to the URL given with each request (`dlrUrl`, `callBackUrl`, a hook's `url`): use the
 * printed URL there. `--events` filters on this side: other events are acknowledged and not forwarded.
 *
 * Credentials: messaging takes the access token from AT (default: DATA_DIR/sandbox-token, written by
 * `npm start`); open banking the agent hash from AGENT_HASH (`x-agent-hash`). API_URL overrides the API
 * (default: the one in DATA_DIR/sandbox-parties.json, else http://127.0.0.1:$PORT or 3000).
 */

type Service = 'messaging' | 'openbanking';

interface Endpoint {
  id: string;
  url: string;
  secret: string;
}

const USAGE =
  'usage: npm run webhooks -- listen --forward-to <url> [--service messaging|openbanking] ' +
  '[--events type,type] [--port <port>]';

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

const FORWARDED_HEADERS = ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

async function listen(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'forward-to': { type: 'string' },
      service: { type: 'string', default: 'messaging' },
      events: { type: 'string' },
      port: { type: 'string', default: '0' },
    },
  });
  const forwardTo = values['forward-to'] ?? fail(USAGE);
  if (!URL.canParse(forwardTo)) fail(`--forward-to: not a URL: ${forwardTo}`);
  const service = values.service;
  if (service !== 'messaging' && service !== 'openbanking')
    fail(`--service: messaging or openbanking, not ${service}`);
  const events = values.events
    ?.split(',')
    .map((type) => type.trim())
    .filter(Boolean);
  const dataDir = path.resolve(process.env.DATA_DIR ?? 'data');
  const api = webhookApi(apiUrlOf(dataDir), service, dataDir);

  let endpoint: Endpoint | undefined;
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
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_HEADERS) {
      const value = header(name);
      if (value !== undefined) headers[name] = value;
    }
    try {
      const forwarded = await fetch(forwardTo, { method: 'POST', headers, body: raw });
      await forwarded.body?.cancel();
      line(`→ ${forwarded.status}`);
      response.writeHead(forwarded.status).end();
    } catch (error) {
      line(`→ failed (${(error as Error).cause ?? (error as Error).message})`);
      response.writeHead(502).end();
    }
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      console.error(error);
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(values.port), '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/listen/${randomBytes(8).toString('hex')}`;

  const created = await api('POST', '/webhooks/endpoints', { url }).catch((error: unknown) =>
    fail(`Cannot reach the API: ${(error as Error).cause ?? (error as Error).message}`),
  );
  if (created.status !== 201 && created.status !== 200) {
    server.close();
    fail(`Could not register the endpoint (HTTP ${created.status}): ${await created.text()}`);
  }
  endpoint = (await created.json()) as Endpoint;

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
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
    `Use the URL as ${service === 'messaging' ? 'dlrUrl / callBackUrl' : 'the hook url (createhook)'}; ` +
      `forwarding${events ? ` ${events.join(', ')}` : ''} to ${forwardTo}. Ctrl-C deletes the endpoint.`,
  );
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'listen') await listen(rest);
else fail(USAGE);
