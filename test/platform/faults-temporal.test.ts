import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DefaultLogger, makeTelemetryFilterString, Runtime } from '@temporalio/worker';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { collectObligations } from '../../db/schema/collect.ts';
import { webhookDeliveries } from '../../db/schema/webhooks.ts';
import { consentWorkflowId } from '../../domain/openbanking/processes.ts';
import { type DevServer, processInfo, startDevServer } from '../../platform/dev-server.ts';
import { freePort } from '../../platform/net.ts';
import { resolveTemporalCli } from '../../platform/temporal-cli.ts';
import { driveSca } from '../../sandbox/openbanking/sca-driver.ts';
import { startReceiver } from '../../sandbox/webhook-receiver.ts';
import { expTimeIn, newInvoice, signedPacket, textReply } from '../collect/epay-client.ts';
import { bankHash, newCustomer, startConsent } from '../openbanking/consent-helpers.ts';
import { type IsolatedPlatform, startIsolatedPlatform } from '../support/isolated-platform.ts';
import { messagingClient } from '../support/messaging-client.ts';
import { eventually, readHealth } from '../support/platform.ts';

/**
 * A fault of the platform's own parts (issue 13, item 9): the Temporal server stops for
 * FAULT_OUTAGE_MS (default 30 s) while an SMS, an obligation and a consent are in flight, and comes
 * back on the same port and SQLite file. `/health` names `temporal` while it is down; afterwards every
 * process completes exactly once: one SMPP submission and one delivery report per message, one
 * notification per obligation change, one hook call per consent.
 *
 * The suite's shared dev server is left alone: this file runs a persisted dev server of its own.
 */

const OUTAGE_MS = Number(process.env.FAULT_OUTAGE_MS ?? 30_000);

let dataDir: string;
let cliPath: string;
let port: number;
let server: DevServer | undefined;
let platform: IsolatedPlatform;
let reports: Awaited<ReturnType<typeof startReceiver>>;
let hooks: Awaited<ReturnType<typeof startReceiver>>;

const startServer = () =>
  startDevServer({ cliPath, port, dbFile: path.join(dataDir, 'temporal.sqlite'), uiPort: false });

/**
 * The pids whose command line is this file's dev server (`temporal server start-dev --db-filename <its
 * file>`): normally one, the shell having exec'd into the server; all are stopped, so that no second
 * match (a process not yet exec'd, a re-exec) can keep answering.
 */
function devServerPids(): number[] {
  const dbFile = path.join(dataDir, 'temporal.sqlite');
  const pids: number[] = [];
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    const args = processInfo(Number(entry))?.args ?? [];
    if (args.includes('start-dev') && args.includes(dbFile)) pids.push(Number(entry));
  }
  if (pids.length === 0) throw new Error('the dev server process was not found');
  return pids;
}

beforeAll(async () => {
  // The worker's native core warns on every failed poll while the server is down: keep the output to errors.
  if (!Runtime._instance)
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }), forward: {} } },
    });
  dataDir = mkdtempSync(path.join(tmpdir(), 'fault-temporal-'));
  cliPath = await resolveTemporalCli({ explicitPath: process.env.TEMPORAL_CLI_PATH });
  port = await freePort();
  server = await startServer();
  reports = await startReceiver();
  hooks = await startReceiver();
  platform = await startIsolatedPlatform({
    temporalAddress: server.address,
    workflowBundlePath: inject('workflowBundlePath'),
    // The receipt comes while the server is down (the SMSC sends it again until it is taken).
    receiptDelayMs: 1_500,
    env: { SMS_RECEIPT_TIMEOUT: '10m' },
  });
}, 120_000);
afterAll(async () => {
  await platform?.stop();
  await server?.stop();
  await reports?.stop();
  await hooks?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

const health = () => readHealth(platform.apiUrl);

/**
 * Keeps the stopped server's port from other test files while it is down, refusing every connection as
 * a stopped server does. Left free, the port is what `freePort()` may hand a dev server of a file running
 * alongside (30 s is long): the platform would then reach that server, its worker would poll it, and
 * /health would answer 200 "while the server is stopped" (the flake of issue 37).
 */
async function holdPort(): Promise<Server> {
  const holder = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    holder.once('error', reject);
    holder.listen(port, '127.0.0.1', resolve);
  });
  return holder;
}

it(`the Temporal server stopped for ${OUTAGE_MS / 1000} s and restarted: /health names it, every process completes once`, async () => {
  await eventually(async () => ((await health()).status === 200 ? true : undefined), 30_000, 'ready');
  const api = messagingClient(() => platform);

  // A server that hangs (SIGSTOP) rather than refuses: /health still answers, in bounded time.
  const pids = devServerPids();
  for (const pid of pids) process.kill(pid, 'SIGSTOP');
  try {
    // kill() only queues the signal: ask /health once the kernel reports every match stopped.
    await eventually(
      async () => (pids.every((pid) => processInfo(pid)?.state === 'T') ? true : undefined),
      5_000,
      'the dev server stopped',
    );
    const hung = await health();
    expect({ status: hung.status, notReady: hung.body.notReady }).toEqual({
      status: 503,
      notReady: ['temporal'],
    });
    expect(hung.ms).toBeLessThan(5_000);
  } finally {
    for (const pid of pids) process.kill(pid, 'SIGCONT');
  }
  await eventually(async () => ((await health()).status === 200 ? true : undefined), 30_000, 'ready again');

  // In flight: an SMS waiting for its receipt, an obligation expiring during the outage, a consent
  // waiting for the customer's SCA.
  const sms = await api('POST', '/sms', {
    body: { to: '+359888123456', from: '+359888000111', message: 'through the outage', dlrUrl: reports.url },
  });
  expect(sms.status).toBe(202);
  const smsId = String(sms.json.id);
  await eventually(
    async () => ((await api('GET', `/sms/${smsId}`)).json.status === 'submitted' ? true : undefined),
    15_000,
    'the SMS to be submitted',
  );

  const merchant = await platform.createSandboxMerchant();
  const invoice = newInvoice();
  const registered = await textReply(
    await fetch(
      `${platform.collectUrl}/office/reg_bill.cgi?${new URLSearchParams(
        signedPacket(
          {
            MIN: merchant.min,
            INVOICE: invoice,
            AMOUNT: '9.99',
            EXP_TIME: expTimeIn(Math.min(OUTAGE_MS / 2, 10_000)),
          },
          merchant.secret,
        ),
      )}`,
    ),
  );
  expect(registered.status, registered.body).toBe(200);
  const idn = registered.fields.IDN!;

  const customer = await newCustomer(platform);
  const hook = await customer.call<{ hookHash: string }>('POST', '/api/8/createhook', {
    headers: customer.headers,
    body: { url: hooks.url, redirectUrl: 'https://agent.example.com/done' },
  });
  const consent = await startConsent(customer, {
    bankHash: bankHash('bank-b'),
    hookHash: hook.body.hookHash,
  });

  // The outage.
  await server!.stop();
  server = undefined;
  const portHolder = await holdPort();
  const down = await eventually(
    async () => {
      const answer = await health();
      return answer.body.notReady?.includes('temporal') ? answer : undefined;
    },
    15_000,
    '/health to name temporal',
  );
  expect(down.status).toBe(503);
  expect(down.body).toEqual({ status: 'starting', notReady: ['temporal'] });
  expect(down.ms).toBeLessThan(5_000);
  await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
  const stillDown = await health();
  expect({ status: stillDown.status, notReady: stillDown.body.notReady }).toEqual({
    status: 503,
    notReady: ['temporal'],
  });

  await new Promise((resolve) => portHolder.close(resolve));
  server = await startServer();
  await eventually(async () => ((await health()).status === 200 ? true : undefined), 60_000, 'ready again');

  // The customer authenticates at the bank once the platform is back.
  await driveSca(consent.scaRedirectUrl, {
    psuId: 'carol',
    password: 'sandbox-carol',
    decision: 'approve',
    submit: true,
  });
  expect(await platform.client.workflow.getHandle(consentWorkflowId(consent.consentId)).result()).toBe(
    'ACTIVE',
  );

  // The SMS: delivered, submitted once, reported once.
  await eventually(
    async () => ((await api('GET', `/sms/${smsId}`)).json.status === 'delivered' ? true : undefined),
    60_000,
    'the SMS to be delivered',
  );
  await eventually(
    async () => (reports.requests.length > 0 ? true : undefined),
    30_000,
    'the delivery report',
  );
  // The obligation: expired, notified once.
  await eventually(
    async () => {
      const [row] = await platform.db
        .select()
        .from(collectObligations)
        .where(eq(collectObligations.idn, idn));
      return row?.status === 'EXPIRED' ? row : undefined;
    },
    60_000,
    'the obligation to expire',
  );
  const notified = () =>
    platform.sandbox.merchant.notifications.flatMap((notification) =>
      notification.lines.filter((line) => line.invoice === invoice),
    );
  await eventually(async () => (notified().length > 0 ? true : undefined), 30_000, 'the notification');
  // The consent's hook.
  await eventually(
    async () => {
      const [row] = await platform.db
        .select()
        .from(webhookDeliveries)
        .where(
          and(eq(webhookDeliveries.subjectId, consent.consentId), eq(webhookDeliveries.status, 'delivered')),
        );
      return row;
    },
    30_000,
    'the hook call',
  );

  // Nothing doubled: a moment for any duplicate to arrive, then exactly one of each.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect(
    platform.sandbox.smpp.submitted.filter((submitted) => submitted.text === 'through the outage'),
  ).toHaveLength(1);
  expect(reports.requests.filter((request) => request.body.includes(smsId))).toHaveLength(1);
  expect(reports.requests).toHaveLength(1);
  expect(notified().map((line) => line.status)).toEqual(['EXPIRED']);
  expect(hooks.requests).toHaveLength(1);
  expect(hooks.requests[0]!.path).toContain(`state=${encodeURIComponent(consent.state)}`);
}, 240_000);
