import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { serve } from '@hono/node-server';
import { and, count, desc, eq, getTableColumns, inArray, ne } from 'drizzle-orm';
import { Hono } from 'hono';
import { listUserAccounts } from '../api/openbanking/account-records.ts';
import { obAccounts, obConsents, obTransactions } from '../db/schema/openbanking.ts';
import { bankHashOf } from '../domain/openbanking/bank-directory.ts';
import { driveSca } from '../sandbox/openbanking/sca-driver.ts';
import { startReceiver } from '../sandbox/webhook-receiver.ts';
import { enrolUser, type ObCall, openBankingClient } from '../test/support/openbanking-client.ts';
import type { BenchContext } from './context.ts';
import { formatLatencies, type LoadResult, percentile, runLoad } from './load.ts';

const TRANSACTION_READS = Number(process.env.BENCH_OB_TRANSACTION_READS ?? 200);
const IBAN_READS = Number(process.env.BENCH_OB_IBAN_READS ?? 2000);
const CONSENTS = Number(process.env.BENCH_CONSENTS ?? 200);
/** Consents completed one at a time before the concurrent run (their latency without load). */
const SEQUENTIAL_CONSENTS = 5;
const CONSENT_TIMEOUT_SECONDS = Number(process.env.BENCH_CONSENT_TIMEOUT_SECONDS ?? 900);

/** The sandbox PSU of part 2: two accounts (40 + 10 transactions), a typical retail customer. */
const CONSENT_PSU = 'alice';
const BANK_A = bankHashOf('bank-a');
const BENCH_IBAN = 'BG94SBXA96611000010000';

/**
 * Open-banking gateway:
 *   1. GET /api/8/transactions/{ibanId} of an account holding 10,000 transactions, and GET /api/8/ibans:
 *      requests per second and latency at fixed concurrency, each beside a baseline bare Hono route on its
 *      own port that runs the same query through the same database client and answers c.json(rows);
 *   2. consents completed end to end: POST consent → the bank's SCA page driven over HTTP (login,
 *      approve, the auto-submitted POST back to the gateway) → ACTIVE with accounts, balances and
 *      transactions stored, for N consents of N customers.
 */
export async function benchOpenBanking({ platform, concurrency: CONCURRENCY }: BenchContext): Promise<void> {
  const { db } = platform;
  const call = openBankingClient(platform.openBanking.url);
  const agent = await platform.openBanking.createAgent('Bench agent');
  console.log(
    `  ${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')} at start`,
  );

  // --- 1. Reads from the read model -----------------------------------------------------------------
  const customer = await enrolUser(call, agent.agentHash);
  const userHeaders = { 'x-user-hash': customer.userHash };
  const setupStarted = performance.now();
  const { consentId } = await completeConsent(call, userHeaders, 'bench');
  await untilFinished(db, [consentId], 300_000);
  const [consent] = await db.select().from(obConsents).where(eq(obConsents.id, consentId));
  if (consent?.status !== 'ACTIVE') throw new Error(`the bench consent ended ${consent?.status}`);
  const [account] = await db
    .select()
    .from(obAccounts)
    .where(and(eq(obAccounts.userId, customer.userId), eq(obAccounts.iban, BENCH_IBAN)));
  if (!account) throw new Error('the bench account is not in the read model');
  const [stored] = await db
    .select({ count: count() })
    .from(obTransactions)
    .where(eq(obTransactions.accountId, account.id));
  console.log(
    `\n1. Reads (the sandbox user "bench" at Bank A, consent completed in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s; ` +
      `${stored?.count} transactions of ${BENCH_IBAN} in the read model)`,
  );

  // Baseline: the same queries through the same client, no identity, validation or record mapping. It
  // selects the columns the API answers (not account_id and date), so both send the same records.
  const { accountId: _accountId, date: _date, ...answeredColumns } = getTableColumns(obTransactions);
  const baselineApp = new Hono();
  baselineApp.get('/transactions/:accountId', async (c) => {
    const rows = await db
      .select(answeredColumns)
      .from(obTransactions)
      .where(eq(obTransactions.accountId, c.req.param('accountId')))
      .orderBy(desc(obTransactions.date), desc(obTransactions.entryReference), obTransactions.transactionId);
    return c.json(rows);
  });
  baselineApp.get('/ibans/:userId', async (c) => c.json(await listUserAccounts(db, c.req.param('userId'))));
  const baselineServer = serve({ fetch: baselineApp.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => baselineServer.once('listening', resolve));
  const baselineUrl = `http://127.0.0.1:${(baselineServer.address() as AddressInfo).port}`;

  let lastBytes = 0;
  const get = (url: string, headers: Record<string, string> = {}) =>
    fetch(url, { headers }).then(async (response) => {
      const body = await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`unexpected status ${response.status}`);
      lastBytes = body.byteLength;
    });

  const apiTransactions = `${platform.openBanking.url}/api/8/transactions/${account.id}`;
  const { body: list } = await call<{ booked: unknown[]; pending: unknown[] }>(
    'GET',
    `/api/8/transactions/${account.id}`,
    { headers: userHeaders },
  );
  await get(apiTransactions, userHeaders);
  const apiBytes = lastBytes;
  await get(`${baselineUrl}/transactions/${account.id}`);
  const baselineBytes = lastBytes;
  console.log(
    `  GET transactions answers every transaction of the account in one response (the API has no paging; ` +
      `dateFrom/dateTo narrow it): ${list.booked.length} booked + ${list.pending.length} pending, ` +
      `${(apiBytes / 1024).toFixed(0)} KB (baseline: the same records as a bare array, ${(baselineBytes / 1024).toFixed(0)} KB)`,
  );
  const compare = async (
    label: string,
    path: string,
    total: number,
    baselineRequest: () => Promise<void>,
    apiRequest: () => Promise<void>,
  ) => {
    // Warm-up (JIT, connection pools, credential cache), not measured.
    const warmUp = Math.max(10, Math.floor(total / 10));
    await runLoad(warmUp, CONCURRENCY, baselineRequest);
    await runLoad(warmUp, CONCURRENCY, apiRequest);
    const baseline = await runLoad(total, CONCURRENCY, baselineRequest);
    const api = await runLoad(total, CONCURRENCY, apiRequest);
    console.log(`  ${label}, ${total} requests at concurrency ${CONCURRENCY}:`);
    console.log(`    baseline (bare route, same query): ${rate(baseline)}, ${formatLatencies(baseline)}`);
    console.log(`    GET /openbanking/api/8${path}: ${rate(api)}, ${formatLatencies(api)}`);
    console.log(
      `    ratio API / baseline: ${(api.perSecond / baseline.perSecond).toFixed(2)} (throughput), ` +
        `${(percentile(api.latencies, 0.99) / percentile(baseline.latencies, 0.99)).toFixed(2)} (p99 latency)`,
    );
  };
  await compare(
    'transactions of an account with 10,000 transactions',
    '/transactions/{ibanId}',
    TRANSACTION_READS,
    () => get(`${baselineUrl}/transactions/${account.id}`),
    () => get(apiTransactions, userHeaders),
  );
  await compare(
    'ibans of a customer with 1 account',
    '/ibans',
    IBAN_READS,
    () => get(`${baselineUrl}/ibans/${customer.userId}`),
    () => get(`${platform.openBanking.url}/api/8/ibans`, userHeaders),
  );
  baselineServer.close();

  // --- 2. Consents end to end -------------------------------------------------------------------------
  console.log(
    `\n2. Consents end to end, SCA driven over HTTP (no browser): ${CONSENTS} customers, sandbox user ` +
      `"${CONSENT_PSU}" at Bank A (2 accounts, 50 transactions), concurrency ${CONCURRENCY}`,
  );
  const receiver = await startReceiver();
  const { status: hookStatus, body: hook } = await call<{ hookHash: string }>('POST', '/api/8/createhook', {
    headers: { 'x-agent-hash': agent.agentHash },
    body: { url: receiver.url },
  });
  if (hookStatus !== 201) throw new Error(`createhook answered ${hookStatus}`);

  const customers: Awaited<ReturnType<typeof enrolUser>>[] = [];
  const signups = await runLoad(CONSENTS + SEQUENTIAL_CONSENTS, CONCURRENCY, async () => {
    customers.push(await enrolUser(call, agent.agentHash));
  });
  console.log(`  signups (setup): ${rate(signups)}, ${formatLatencies(signups)}`);

  // One at a time first: the latency of a consent on an otherwise idle platform.
  const alone: number[] = [];
  for (const user of customers.splice(0, SEQUENTIAL_CONSENTS)) {
    const t0 = Date.now();
    const { consentId } = await completeConsent(call, { 'x-user-hash': user.userHash }, CONSENT_PSU);
    const [row] = await untilFinished(db, [consentId], 60_000);
    if (row?.status === 'ACTIVE') alone.push(row.finishedAt!.getTime() - t0);
  }
  alone.sort((a, b) => a - b);
  console.log(
    `  one at a time (${alone.length} consents): POST consent → ACTIVE with accounts stored ` +
      `p50 ${percentile(alone, 0.5).toFixed(0)} ms, max ${(alone.at(-1) ?? Number.NaN).toFixed(0)} ms`,
  );

  const startedAt = new Map<string, number>();
  const byState = new Map<string, string>();
  let failureShown = false;
  const e2eStarted = Date.now();
  const userPart = await runLoad(CONSENTS, CONCURRENCY, async (i) => {
    const user = customers[i]!;
    const t0 = Date.now();
    try {
      const started = await completeConsent(
        call,
        { 'x-user-hash': user.userHash },
        CONSENT_PSU,
        hook.hookHash,
      );
      startedAt.set(started.consentId, t0);
      byState.set(started.state, started.consentId);
    } catch (error) {
      if (!failureShown) console.log(`  first failure: ${(error as Error).message}`);
      failureShown = true;
      throw error;
    }
  });
  console.log(
    `  the customer's part (POST consent, SCA page: login + approve, POST back to the gateway): ` +
      `${formatLatencies(userPart)}`,
  );
  const ids = [...startedAt.keys()];
  const finished = await untilFinished(db, ids, CONSENT_TIMEOUT_SECONDS * 1000);
  const active = finished.filter((row) => row.status === 'ACTIVE');
  const others = finished.filter((row) => row.status !== 'ACTIVE').map((row) => row.status);
  const latencies = active
    .map((row) => row.finishedAt!.getTime() - startedAt.get(row.id)!)
    .sort((a, b) => a - b);
  const lastFinished = Math.max(...finished.map((row) => row.finishedAt?.getTime() ?? 0));
  const seconds = (lastFinished - e2eStarted) / 1000;
  const [accounts] = await db
    .select({ count: count() })
    .from(obAccounts)
    .where(inArray(obAccounts.consentId, ids));
  console.log(
    `  ${active.length}/${CONSENTS} ACTIVE (${accounts?.count} accounts stored${others.length ? `; others: ${others.join(', ')}` : ''}) ` +
      `in ${seconds.toFixed(1)} s: ${(active.length / seconds).toFixed(1)} consents/s; ` +
      `POST consent → ACTIVE with accounts stored: p50 ${percentile(latencies, 0.5).toFixed(0)} ms, ` +
      `p99 ${percentile(latencies, 0.99).toFixed(0)} ms`,
  );

  // The hook is how an integrator learns it: one signed call per consent, with its state appended.
  const hookDeadline = Date.now() + 60_000;
  while (receiver.requests.length < active.length && Date.now() < hookDeadline)
    await new Promise((resolve) => setTimeout(resolve, 100));
  const hookLatencies = receiver.requests
    .map((request) => {
      const state = new URL(request.path, 'http://receiver').searchParams.get('state') ?? '';
      const id = byState.get(state);
      return id === undefined ? undefined : request.at - startedAt.get(id)!;
    })
    .filter((latency): latency is number => latency !== undefined)
    .sort((a, b) => a - b);
  console.log(
    `  hook calls received: ${hookLatencies.length}/${CONSENTS}; POST consent → hook received: ` +
      `p50 ${percentile(hookLatencies, 0.5).toFixed(0)} ms, p99 ${percentile(hookLatencies, 0.99).toFixed(0)} ms`,
  );
  await receiver.stop();
}

const rate = (result: LoadResult) => `${result.perSecond.toFixed(result.perSecond < 100 ? 1 : 0)} req/s`;

/**
 * What a customer's browser does: POST consent (as the integrator's backend), then the bank's SCA page:
 * log in as the sandbox user, approve, and POST the bank's auto-submitted return form to the gateway.
 */
async function completeConsent(
  call: ObCall,
  headers: Record<string, string>,
  psuId: string,
  hookHash?: string,
): Promise<{ consentId: string; state: string }> {
  const { status, body } = await call<{ consentId: string; state: string; scaRedirectUrl: string }>(
    'POST',
    '/api/8/consent',
    { headers, body: { bankHash: BANK_A, ...(hookHash ? { hookHash } : {}) } },
  );
  if (status !== 201) throw new Error(`POST consent answered ${status} ${JSON.stringify(body)}`);
  const { submitted } = await driveSca(body.scaRedirectUrl, {
    psuId,
    password: `sandbox-${psuId}`,
    decision: 'approve',
    submit: true,
  });
  await submitted?.arrayBuffer();
  if (!submitted || submitted.status >= 400) throw new Error(`the callback answered ${submitted?.status}`);
  return { consentId: body.consentId, state: body.state };
}

/** Polls the read model until every consent has left AWAITING_SCA; answers their final rows. */
async function untilFinished(db: BenchContext['platform']['db'], ids: string[], timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await db
      .select({ id: obConsents.id, status: obConsents.status, finishedAt: obConsents.finishedAt })
      .from(obConsents)
      .where(and(inArray(obConsents.id, ids), ne(obConsents.status, 'AWAITING_SCA')));
    if (rows.length === ids.length) return rows;
    if (Date.now() > deadline) {
      console.log(`  gave up waiting: ${ids.length - rows.length} consents still AWAITING_SCA`);
      return rows;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
