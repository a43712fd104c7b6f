import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messaging } from '../../application/messaging/index.ts';
import { revokeAccessToken } from '../../credentials/messaging/access-tokens.ts';
import { type Answer, messagingClient } from '../support/messaging-client.ts';
import { eventually, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * The messaging access matrix (issue 13), derived from the gateway's OpenAPI document like the
 * open-banking one (test/openbanking/identity.test.ts): every documented operation (but the chat-app
 * provider's webhook, signed instead) refuses a caller
 * without a live access token (401, before the request is validated), and an account reaches only its
 * own messages, sender IDs, numbers, lookups and deliveries (another account's is 404, never data).
 * Only the request that creates each kind of resource is written by hand.
 */

let platform: TestPlatform;
const api = messagingClient(() => platform);
let receiver: Server;
let receiverUrl: string;
let other: { token: string; accountId: string };
let revoked: string;

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  example?: unknown;
  schema?: { example?: unknown };
}
interface DocumentedOperation {
  method: string;
  path: string;
  parameters: Parameter[];
  isPublic: boolean;
}

async function documentedOperations(): Promise<DocumentedOperation[]> {
  const document = (await (await fetch(`${platform.baseUrl}/openapi.json`)).json()) as {
    security?: Record<string, string[]>[];
    paths: Record<
      string,
      Record<string, { security?: Record<string, string[]>[]; parameters?: Parameter[] }>
    >;
  };
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      parameters: operation.parameters ?? [],
      isPublic: (operation.security ?? document.security ?? []).every(
        (alternative) => Object.keys(alternative).length === 0,
      ),
    })),
  );
}

/** Callbacks of the gateway's providers, which hold no account's data (decision 0062). */
const PROVIDER_CALLBACKS = ['GET /chatapp/webhook', 'POST /chatapp/webhook'];

/** Shared reference data: the same for every account, nothing of a tenant in it. */
const REFERENCE_PATHS = new Set(['/mccmnc/{country}', '/operators/{operatorId}', '/prefixes/{country}']);

/** One resource of the account `token` per path parameter's owner: the request each kind needs. */
type Resources = Record<string, string>;

async function createResources(token: string, marker: string): Promise<Resources> {
  const tomorrow = new Date(Date.now() + 86_400_000);
  const sms = await api('POST', '/sms', {
    token,
    body: { to: '+359888123456', from: '+359888000111', message: `sms ${marker}`, dlrUrl: receiverUrl },
  });
  expect(sms.status, JSON.stringify(sms.json)).toBe(202);
  const scheduled = await api('POST', '/sms', {
    token,
    body: {
      to: '+359888123457',
      from: '+359888000111',
      message: `scheduled ${marker}`,
      scheduled: tomorrow.toISOString(),
    },
  });
  expect(scheduled.status, JSON.stringify(scheduled.json)).toBe(202);
  const senderId = await api('POST', '/senderId', { token, body: { senderId: marker.slice(0, 11) } });
  expect(senderId.status, JSON.stringify(senderId.json)).toBe(202);
  const hlr = await api('POST', '/hlr', {
    token,
    body: { number: '+359888123458', callBackUrl: receiverUrl },
  });
  expect(hlr.status, JSON.stringify(hlr.json)).toBe(202);
  const resources: Resources = {
    '/sms/{id}': String(sms.json.id),
    '/senderId/{id}': String(senderId.json.id),
    '/senderId/confirm/{id}': String(senderId.json.id),
    '/hlr/{id}': String(hlr.json.id),
    scheduledDay: tomorrow.toISOString().slice(0, 10),
  };
  // A number the operator assigned to the account (decision 0087).
  const accountId = token === platform.token ? platform.accountId : other.accountId;
  const inbound = await messaging.assignInboundNumber(
    { db: platform.db, config: platform.config },
    { accountId, number: '+359888770021' },
  );
  resources['/inbound/numbers/{number}'] = inbound.number.number;
  // A from-number verification, where the gateway documents it (decision 0028).
  const number = await api('POST', '/numbers', { token, body: { number: '+359888000777' } });
  if (number.status === 202) resources['/numbers/{id}/verify'] = String(number.json.id);
  // The delivery report of the SMS: a webhook delivery of this account.
  resources['/webhooks/deliveries/{id}'] = await eventually(
    async () => {
      const { json } = await api('GET', `/webhooks/deliveries?subjectId=${sms.json.id}`, { token });
      const items = (json.items ?? []) as { id: string }[];
      return items[0]?.id;
    },
    20_000,
    'the delivery report of the SMS',
  );
  resources['/webhooks/deliveries/{id}/replay'] = resources['/webhooks/deliveries/{id}'];
  // The endpoint the report went to (with its signing secret).
  const endpoints = await api('GET', '/webhooks/endpoints', { token });
  const endpoint = ((endpoints.json.items ?? []) as { id: string; url: string; secret: string }[]).find(
    (candidate) => candidate.url === receiverUrl,
  );
  if (endpoint) {
    resources['/webhooks/endpoints/{id}/rotate-secret'] = endpoint.id;
    resources['/webhooks/endpoints/{id}'] = endpoint.id;
    resources.endpointSecret = endpoint.secret;
  }
  return resources;
}

/** The request of an operation on a resource (a body for the POSTs that need one). */
const bodyFor = (path: string): unknown =>
  path === '/numbers/{id}/verify'
    ? { code: '000000' }
    : path === '/inbound/numbers/{number}'
      ? { inboundUrl: null }
      : undefined;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200).end('ok'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  platform = await startTestPlatform();
  other = await platform.issueToken('Other account');
  const soonRevoked = await platform.issueToken('Revoked account');
  await revokeAccessToken(platform.db, soonRevoked.tokenId);
  revoked = soonRevoked.token;
});
afterAll(async () => {
  await platform?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

const fillPath = (path: string, resources: Resources = {}) =>
  path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    name === 'country' ? 'BG' : name === 'operatorId' ? '28401' : (resources[path] ?? `x-${name}`),
  );

describe('messaging access matrix', () => {
  it('every documented operation without a live token is 401 with the error body, before validation', async () => {
    const documented = await documentedOperations();
    expect(documented.length).toBeGreaterThanOrEqual(18);
    // The only operations without the token: the chat-app provider's webhook, authenticated by its verify
    // token and body signature instead (test/messaging/chatapp.test.ts, decision 0062).
    expect(documented.filter((operation) => operation.isPublic).map((o) => `${o.method} ${o.path}`)).toEqual(
      PROVIDER_CALLBACKS,
    );
    const operations = documented.filter((operation) => !operation.isPublic);
    const tokens: [string, string | null][] = [
      ['no token', null],
      ['forged token', 'at_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
      ['revoked token', revoked],
    ];
    for (const { method, path, parameters } of operations) {
      // Invalid query parameters and body too: the token is checked first, nothing is learnt of the request.
      const query = parameters
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => `${parameter.name}=%7Bbad`)
        .join('&');
      for (const [label, token] of tokens) {
        const name = `${method} ${path} (${label})`;
        const answer = await api(method, `${fillPath(path)}${query ? `?${query}` : ''}`, {
          token,
          ...(method === 'GET' ? {} : { body: '{"bad":' }),
        });
        expect(answer.status, name).toBe(401);
        expect(answer.json.error?.code, name).toBe('unauthorized');
      }
    }
  });

  it('another account’s messages, sender IDs, numbers, lookups and deliveries are 404, never data', async () => {
    const mine = await createResources(platform.token, 'MINEabc123');
    const operations = (await documentedOperations()).filter((operation) => !operation.isPublic);
    const owned = operations.filter(({ path }) => path.includes('{') && !REFERENCE_PATHS.has(path));
    expect(owned.length).toBeGreaterThanOrEqual(5);
    // Every value that identifies this account's data, which no answer to the other account may show.
    const markers = ['MINEabc123', receiverUrl, platform.accountId, ...Object.values(mine)];
    const leaks = (answer: Answer) =>
      markers.filter((marker) => JSON.stringify(answer.json).includes(marker));

    for (const { method, path } of owned) {
      const name = `${method} ${path}`;
      expect(mine[path], `${name}: no resource is created for it (add one to createResources)`).toBeDefined();
      if (method === 'GET') {
        const own = await api(method, fillPath(path, mine));
        expect(own.status, `${name} (owner)`).toBe(200);
      }
      const foreign = await api(method, fillPath(path, mine), { token: other.token, body: bodyFor(path) });
      expect(foreign.status, `${name} (other account)`).toBe(404);
      expect(foreign.json.error?.code, name).toBe('not_found');
      expect(leaks(foreign), name).toEqual([]);
    }

    // Every list and read without a path parameter: the other account sees nothing of this one.
    const fillQuery = (parameters: Parameter[]) =>
      parameters
        .filter((parameter) => parameter.in === 'query' && parameter.name === 'scheduled')
        .map(() => `scheduled=${mine.scheduledDay}`)
        .join('&');
    const lists = operations.filter(({ method, path }) => method === 'GET' && !path.includes('{'));
    expect(lists.map((o) => o.path)).toEqual(
      expect.arrayContaining(['/sms', '/senderId', '/webhooks/deliveries']),
    );
    for (const { path, parameters } of lists) {
      const query = fillQuery(parameters);
      const target = `${path}${query ? `?${query}` : ''}`;
      const own = await api('GET', target);
      const foreign = await api('GET', target, { token: other.token });
      expect(foreign.status, `GET ${target}`).toBe(200);
      expect(leaks(foreign), `GET ${target}`).toEqual([]);
      if (['/sms', '/senderId', '/webhooks/deliveries', '/webhooks/endpoints'].includes(path))
        expect(leaks(own).length, `GET ${target} lists the owner's data`).toBeGreaterThan(0);
    }

    // The other account's attempts changed nothing: the sender ID is still pending, the message its own.
    expect((await api('GET', `/senderId/${mine['/senderId/{id}']}`)).json).toMatchObject({
      status: 'pending',
    });
    expect((await api('GET', `/sms/${mine['/sms/{id}']}`)).json).toMatchObject({ id: mine['/sms/{id}'] });
    if (mine.endpointSecret) {
      const { json } = await api('GET', '/webhooks/endpoints');
      expect(JSON.stringify(json)).toContain(mine.endpointSecret);
    }
  });
});
