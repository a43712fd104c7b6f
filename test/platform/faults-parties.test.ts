import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReadinessProbe } from '../../cmd/readiness.ts';
import type { Database } from '../../db/client.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { getText, newInvoice, signedPacket } from '../collect/epay-client.ts';
import { messagingClient } from '../support/messaging-client.ts';
import { eventually, readHealth, startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * Faults of outside parties and of the readiness probe (issue 13, item 9). A sandbox party that does
 * not answer (the HLR provider, a merchant's notify URL) is given up on at its timeout and tried again
 * on the configured schedule; the process completes once; and `/health` stays ok throughout (an
 * outside party is not a part of the platform). And `/health` answers within its probe timeout when a
 * part of the platform hangs rather than refuses.
 */

/**
 * A party in front of the sandbox parties: the first request to each path prefix in `hang` is never
 * answered (held open until the caller gives up); every other request is forwarded where `route` says.
 */
async function startHangingProxy(hang: string[]) {
  const seen: { path: string; hung: boolean; at: number }[] = [];
  const held = new Set<ServerResponse>();
  let route: (path: string) => string = (path) => path;
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const path = request.url ?? '/';
      const prefix = hang.find((candidate) => path.startsWith(candidate));
      const hung = prefix !== undefined && !seen.some((earlier) => earlier.path.startsWith(prefix));
      seen.push({ path, hung, at: Date.now() });
      if (hung) {
        held.add(response);
        response.on('close', () => held.delete(response));
        return;
      }
      try {
        const forwarded = await fetch(route(path), {
          method: request.method ?? 'GET',
          headers: Object.fromEntries(
            Object.entries(request.headers).filter(
              (entry): entry is [string, string] =>
                typeof entry[1] === 'string' && !['host', 'content-length', 'connection'].includes(entry[0]),
            ),
          ),
          ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
        });
        const body = Buffer.from(await forwarded.arrayBuffer());
        response.writeHead(forwarded.status, {
          'content-type': forwarded.headers.get('content-type') ?? 'text/plain',
        });
        response.end(body);
      } catch {
        response.writeHead(502).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    routeWith(to: (path: string) => string) {
      route = to;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const response of held) response.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

let platform: TestPlatform;
let proxy: Awaited<ReturnType<typeof startHangingProxy>>;
let callbacks: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  proxy = await startHangingProxy(['/hlr/hlr-lookup', '/merchant/']);
  callbacks = await startReceiver();
  platform = await startTestPlatform({ env: { HLR_URL: `${proxy.url}/hlr` } });
  // /hlr/* goes to the sandbox's HTTP parties, /merchant/* to the sandbox merchant.
  const { http, merchant } = platform.sandbox;
  proxy.routeWith((path) =>
    path.startsWith('/merchant/') ? `${merchant.url}${path.slice('/merchant'.length)}` : `${http.url}${path}`,
  );
}, 60_000);
afterAll(async () => {
  await platform?.stop();
  await proxy?.stop();
  await callbacks?.stop();
});

const health = () => readHealth(platform.apiUrl);

describe('an outside party that does not answer', () => {
  it('is retried after its timeout and the process completes once, while /health stays ok', async () => {
    await eventually(async () => ((await health()).status === 200 ? true : undefined), 30_000, 'ready');
    // Health is sampled all along: an outside party is not a part of the platform.
    const healthAnswers: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        healthAnswers.push((await health()).status);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();

    // The HLR provider: the first lookup hangs past the provider's 10 s request timeout.
    const api = messagingClient(() => platform);
    const lookup = await api('POST', '/hlr', {
      body: { number: '+359888123459', callBackUrl: callbacks.url },
    });
    expect(lookup.status).toBe(202);
    const lookupId = String(lookup.json.id);

    // The merchant's notify URL: the first notification hangs past COLLECT_NOTIFY_REQUEST_TIMEOUT (2 s).
    const min = `D${Math.floor(100_000_000 + Math.random() * 899_999_999)}`;
    const merchant = await platform.createSandboxMerchant({
      min,
      notifyUrl: `${proxy.url}/merchant/${min}/notify`,
    });
    const invoice = newInvoice();
    const registered = await getText(
      `${platform.collectUrl}/office/reg_bill.cgi`,
      signedPacket({ MIN: merchant.min, INVOICE: invoice, AMOUNT: '3.00' }, merchant.secret),
    );
    expect(registered.status, registered.body).toBe(200);
    const paid = await getText(`${platform.collectUrl}/office/pay_bill.cgi`, {
      ACTION: 'PAY',
      IDN: registered.fields.IDN!,
    });
    expect(paid.fields.STATUS).toBe('PAID');

    const notified = () =>
      platform.sandbox.merchant.notifications.flatMap((notification) =>
        notification.lines.filter((line) => line.invoice === invoice).map((line) => line.status),
      );
    await eventually(async () => (notified().length > 0 ? true : undefined), 30_000, 'the notification');
    const result = await eventually(
      async () => {
        const { json } = await api('GET', `/hlr/${lookupId}`);
        return json.status !== 'pending' ? json : undefined;
      },
      40_000,
      'the HLR result',
    );
    expect(result).toMatchObject({ id: lookupId, status: 'completed' });
    await eventually(
      async () => (callbacks.requests.length > 0 ? true : undefined),
      20_000,
      'the HLR callback',
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    sampling = false;
    await sampler;

    // Each hung once, was tried again, and completed once.
    const lookups = proxy.seen.filter((request) => request.path.startsWith('/hlr/hlr-lookup'));
    expect(lookups.map((request) => request.hung)).toEqual([true, false]);
    expect(lookups[1]!.at - lookups[0]!.at).toBeGreaterThanOrEqual(9_000);
    expect(platform.sandbox.http.hlrLookups.filter((msisdn) => msisdn.endsWith('359888123459'))).toHaveLength(
      1,
    );
    expect(callbacks.requests).toHaveLength(1);
    const notifies = proxy.seen.filter((request) => request.path.startsWith('/merchant/'));
    expect(notifies.map((request) => request.hung)).toEqual([true, false]);
    expect(notified()).toEqual(['PAID']);
    const history = await getText(
      `${platform.collectUrl}/notifications`,
      signedPacket({ MIN: merchant.min, INVOICE: invoice }, merchant.secret),
    );
    expect(JSON.parse(history.body).notifications).toMatchObject([
      { status: 'PAID', delivery: 'delivered', attemptCount: 2 },
    ]);
    expect(healthAnswers.length).toBeGreaterThan(10);
    expect(new Set(healthAnswers)).toEqual(new Set([200]));
  }, 90_000);
});

describe('readiness of parts that hang', () => {
  it('names each part that does not answer within the probe timeout', async () => {
    const never = new Promise<never>(() => {});
    const hungDb = { execute: () => never } as unknown as Database;
    const hungTemporal = {
      connection: { withDeadline: (_deadline: number, fn: () => Promise<unknown>) => fn() },
      workflowService: { describeTaskQueue: () => never },
    } as unknown as Client;
    const probe = createReadinessProbe({
      db: hungDb,
      temporal: hungTemporal,
      namespace: 'default',
      taskQueue: 'q',
      timeoutMs: 300,
    });
    const started = Date.now();
    expect(await probe()).toEqual(['database', 'temporal']);
    expect(Date.now() - started).toBeLessThan(1_500);

    // The database answers, Temporal hangs: only temporal is named.
    const liveProbe = createReadinessProbe({
      db: platform.db,
      temporal: hungTemporal,
      namespace: 'default',
      taskQueue: 'q',
      timeoutMs: 300,
    });
    expect(await liveProbe()).toEqual(['temporal']);
  });
});
