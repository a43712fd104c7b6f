import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { ensureWorkflowBundle } from '../platform/workflow-bundle.ts';
import { startIsolatedPlatform } from '../test/support/isolated-platform.ts';
import { announceReady } from './child.ts';

/**
 * The measured stack, a process of its own (bench/run.ts starts it): the API and the worker in one
 * process, as `npm start` runs them, with the sandbox parties, on a fresh database of the PostgreSQL
 * server at DATABASE_URL and the Temporal server at TEMPORAL_ADDRESS. BENCH_STACK_ENV (JSON) overrides
 * configuration. A small control server answers the bench's set-up calls and what the sandbox merchant
 * received; the load itself comes from bench/run.ts, another process.
 */
const address = process.env.TEMPORAL_ADDRESS;
if (!address) throw new Error('TEMPORAL_ADDRESS is required');
const platform = await startIsolatedPlatform({
  temporalAddress: address,
  workflowBundlePath: await ensureWorkflowBundle(),
  // The sandbox SMSC's receipt follows the submission after this long (a real one: seconds; the tests:
  // 100 ms). At 0, smoke runs on a loaded machine left some messages waiting for a receipt never routed.
  receiptDelayMs: Number(process.env.BENCH_RECEIPT_DELAY_MS ?? 100),
  chatAppDelayMs: 0,
  env: JSON.parse(process.env.BENCH_STACK_ENV ?? '{}') as Record<string, string>,
});

const control = new Hono();
control.post('/merchant', async (c) => c.json(await platform.createSandboxMerchant(await c.req.json())));
control.post('/agent', async (c) => c.json(await platform.openBanking.createAgent('Bench agent')));
control.get('/memory', (c) => c.json(process.memoryUsage()));
/** Sets an account's balance at a sandbox bank (the payments' debtor must be able to pay them all). */
control.post('/bank-balance', async (c) => {
  const { bank, iban, balanceMinor } = await c.req.json<{
    bank: string;
    iban: string;
    balanceMinor: number;
  }>();
  const ledger = platform.sandbox.banks.banks.get(bank)?.ledger;
  if (!ledger) return c.json({ error: `no sandbox bank ${bank}` }, 404);
  ledger.setBalance(iban, balanceMinor);
  return c.json({ iban, balanceMinor });
});
/**
 * The texts the sandbox SMSC took whose text holds `contains`, from position `after` of its log on, and
 * the position to ask from next: what the phones received (the gateway keeps code messages masked).
 */
control.get('/smsc-texts', (c) => {
  const submitted = platform.sandbox.smpp.submitted;
  const contains = c.req.query('contains') ?? '';
  const after = Math.min(Number(c.req.query('after') ?? 0) || 0, submitted.length);
  const texts: string[] = [];
  for (let index = after; index < submitted.length; index += 1) {
    const text = submitted[index]?.text ?? '';
    if (text.includes(contains)) texts.push(text);
  }
  return c.json({ texts, next: submitted.length });
});
/** What the sandbox merchant received for these merchants: one entry per notified line. */
control.get('/merchant-notifications', (c) => {
  const mins = new Set((c.req.query('mins') ?? '').split(','));
  const posts = platform.sandbox.merchant.notifications.filter((post) => mins.has(post.min));
  return c.json({
    posts: posts.length,
    failedVerification: posts.filter((post) => !post.checksumValid || !post.signatureValid).length,
    lines: posts.flatMap((post) =>
      post.lines.map((line) => ({ invoice: line.invoice, status: line.status, at: post.at })),
    ),
  });
});
const server = serve({ fetch: control.fetch, port: 0, hostname: '127.0.0.1' });
await new Promise((resolve) => server.once('listening', resolve));

announceReady(
  {
    pid: process.pid,
    controlUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    apiUrl: platform.apiUrl,
    messagingUrl: platform.baseUrl,
    collectUrl: platform.collectUrl,
    openBankingUrl: platform.openBanking.url,
    token: platform.token,
    adminToken: platform.config.ADMIN_TOKEN,
    accountId: platform.accountId,
    databaseUrl: platform.env.DATABASE_URL,
    taskQueue: platform.config.TEMPORAL_TASK_QUEUE,
    namespace: platform.config.TEMPORAL_NAMESPACE,
    // The sandbox SMSC of this process, for the bare SMPP client of baseline (d).
    smpp: {
      url: platform.sandbox.smpp.url,
      systemId: platform.config.SMPP_SYSTEM_ID,
      password: platform.config.SMPP_PASSWORD,
    },
  },
  async () => {
    server.close();
    await platform.stop();
  },
);
