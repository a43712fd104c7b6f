import { eq } from 'drizzle-orm';
import { obPayments } from '../db/schema/openbanking-payments.ts';
import { bankHashOf } from '../domain/openbanking/bank-directory.ts';
import { bulkBatchWorkflowId, bulkPaymentWorkflowId } from '../domain/openbanking/processes.ts';
import { ibanOf, SANDBOX_BANKS } from '../sandbox/openbanking/index.ts';
import { driveSca } from '../sandbox/openbanking/sca-driver.ts';
import { type EnrolledUser, enrolUser, type ObCall } from '../test/support/openbanking-client.ts';
import { watchPeakRss } from './child.ts';
import type { BenchContext } from './context.ts';
import { CONNECTIONS, pause, percentile, runLoad } from './load.ts';
import { completeConsent, untilFinished } from './openbanking-consents.ts';
import { endToEndBaseline, latency, mb, rate, report, seconds } from './results.ts';

const SECTION = 'open banking';
/** Single payments measured (after CONNECTIONS unmeasured ones). */
const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? 500);
/** Bulk sizes, each one bulk. */
const BULK_SIZES = (process.env.BENCH_BULK_SIZES ?? '100,1000,10000')
  .split(',')
  .map((size) => Number(size.trim()))
  .filter((size) => size > 0);
/** How long one bulk may take to reach a final status. */
const BULK_TIMEOUT_SECONDS = Number(process.env.BENCH_BULK_TIMEOUT_SECONDS ?? 1800);
const PSU = 'alice';
const bankA = SANDBOX_BANKS.find((bank) => bank.code === 'bank-a')!;
const bankB = SANDBOX_BANKS.find((bank) => bank.code === 'bank-b')!;
/** Alice's BGN account at Bank A: the bulks' debtor. */
const BULK_DEBTOR_IBAN = ibanOf(bankA, '00000001');
const CREDITOR = { creditorIban: ibanOf(bankB, '70000000'), creditorName: 'Bench creditor' };
/** Enough for every payment of the run: the bank refuses none for want of funds. */
const BALANCE_MINOR = 1_000_000_000_00;

/** The bank's SCA page as the PSU's browser meets it: log in, approve, the return form posted back. */
async function approveAtBank(scaRedirectUrl: string): Promise<void> {
  const { submitted } = await driveSca(scaRedirectUrl, {
    psuId: PSU,
    password: `sandbox-${PSU}`,
    decision: 'approve',
    submit: true,
  });
  await submitted?.arrayBuffer();
  if (!submitted || submitted.status >= 400)
    throw new Error(`the SCA callback answered ${submitted?.status}`);
}

/**
 * Single payments end to end (issue 10), CONNECTIONS at a time from this process: POST
 * /api/8/payment/iban from an added account, POST /api/8/payment (confirm, redirect SCA), the bank's SCA
 * page driven over HTTP, until the payment is CONFIRMED in the read model; vs (c).
 */
export async function benchSinglePayments(context: BenchContext, call: ObCall, agentHash: string) {
  const user = await enrolUser(call, agentHash);
  const headers = { 'x-user-hash': user.userHash, 'user-agent': 'Bench/1.0' };
  const { consentId } = await completeConsent(call, headers, PSU);
  const [consent] = await untilFinished(context, [consentId], 120_000);
  if (consent?.status !== 'ACTIVE') throw new Error(`the payer's consent ended ${consent?.status}`);
  const ibans = await call<{ ibans: { ibanId: string; iban: string; currency: string }[] }>(
    'GET',
    '/api/8/ibans',
    { headers },
  );
  const account = ibans.body.ibans?.[0];
  if (!account) throw new Error(`no account added: ${ibans.status} ${JSON.stringify(ibans.body)}`);
  await context.control('POST', '/bank-balance', {
    bank: 'bank-a',
    iban: account.iban,
    balanceMinor: BALANCE_MINOR,
  });

  const onePayment = async () => {
    const created = await call<{ code: string }>('POST', '/api/8/payment/iban', {
      headers,
      body: { ibanId: account.ibanId, ...CREDITOR, amount: '1.25', currency: account.currency },
    });
    if (created.status !== 201)
      throw new Error(`payment/iban: ${created.status} ${JSON.stringify(created.body)}`);
    const confirmed = await call<{ sca?: { redirectUrl?: string } }>('POST', '/api/8/payment', {
      headers,
      body: { code: created.body.code, scaMethod: 'REDIRECT' },
    });
    const redirectUrl = confirmed.body.sca?.redirectUrl;
    if (confirmed.status !== 200 || !redirectUrl)
      throw new Error(`confirm: ${confirmed.status} ${JSON.stringify(confirmed.body)}`);
    await approveAtBank(redirectUrl);
    const status = await paymentOutcome(context, created.body.code, 120_000);
    if (status !== 'CONFIRMED') throw new Error(`payment ended ${status}`);
  };
  await runLoad(CONNECTIONS, CONNECTIONS, onePayment);
  const result = await runLoad(PAYMENTS, CONNECTIONS, onePayment);
  const endToEnd = {
    perSecond: result.perSecond,
    ok: result.latencies.length,
    failed: result.errors,
    p50: percentile(result.latencies, 0.5),
    p99: percentile(result.latencies, 0.99),
  };
  report({
    section: SECTION,
    operation: `single payment end to end (POST payment/iban, confirm, redirect SCA over HTTP, CONFIRMED), ${PAYMENTS} at ${CONNECTIONS} at a time`,
    figure: rate(endToEnd, 'payments/s'),
    latency: latency(endToEnd),
    perSecond: endToEnd.perSecond,
    baseline: endToEndBaseline(context.baselines),
  });
  if (result.firstFailure) console.log(`  first failure: ${result.firstFailure}`);
}

/** Polls the read model until the payment left WAITING; answers its status. */
async function paymentOutcome({ db }: BenchContext, code: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await db
      .select({ status: obPayments.status })
      .from(obPayments)
      .where(eq(obPayments.code, code));
    if ((row && row.status !== 'WAITING') || Date.now() > deadline) return row?.status ?? 'missing';
    await pause(100);
  }
}

interface BulkSummary {
  status: string;
  confirmed: number;
  failed: number;
  waiting: number;
}

/**
 * Bulk payments (issue 10), one bulk of each of BULK_SIZES: POST /api/8/bulk-payments/payment, the one
 * SCA at the bank, until the bulk is final (every entry's outcome recorded). Wall time, entries per
 * second, the stack's peak RSS, and the largest workflow history: the bulk's and its batch children's.
 */
export async function benchBulkPayments(context: BenchContext, call: ObCall, agentHash: string) {
  const user = await enrolUser(call, agentHash);
  const perThousand: string[] = [];
  for (const size of BULK_SIZES) {
    await context.control('POST', '/bank-balance', {
      bank: 'bank-a',
      iban: BULK_DEBTOR_IBAN,
      balanceMinor: BALANCE_MINOR,
    });
    const peak = watchPeakRss(context.stack.pid);
    const started = performance.now();
    const bulk = await oneBulk(call, agentHash, user, size);
    const wall = (performance.now() - started) / 1000;
    const peakRss = peak.stop();
    const histories = await bulkHistories(context, bulk.bulkId);
    perThousand.push(`${size}: ${((wall * 1000) / size).toFixed(2)} s`);
    report({
      section: SECTION,
      operation: `bulk payment of ${size} entries (POST bulk-payments/payment, SCA over HTTP, every entry final)`,
      figure: `${seconds(wall)}, ${(size / wall).toFixed(1)} entries/s`,
      perSecond: size / wall,
      baseline: endToEndBaseline(context.baselines),
      note: `${bulk.summary.status}: ${bulk.summary.confirmed} confirmed, ${bulk.summary.failed} failed, ${bulk.summary.waiting} waiting; stack peak RSS ${mb(peakRss)}; largest history ${histories.largest} events (bulk ${histories.parent}, ${histories.children} batch children, largest ${histories.largestChild})`,
    });
    await context.drain(`the bulk of ${size}`);
  }
  if (perThousand.length > 1)
    report({
      section: SECTION,
      operation:
        'bulk payments: wall seconds per 1,000 entries, by bulk size (flat when cost grows linearly)',
      figure: perThousand.join('; '),
    });
}

async function oneBulk(
  call: ObCall,
  agentHash: string,
  user: EnrolledUser,
  size: number,
): Promise<{ bulkId: string; summary: BulkSummary }> {
  const started = await call<{ bulkId: string; scaRedirectUrl: string | null }>(
    'POST',
    '/api/8/bulk-payments/payment',
    {
      headers: { 'x-user-hash': user.userHash, 'user-agent': 'Bench/1.0' },
      body: {
        bankHash: bankHashOf('bank-a'),
        debtorIban: BULK_DEBTOR_IBAN,
        payments: Array.from({ length: size }, (_, i) => ({
          creditorIban: ibanOf(bankB, String(70_000_000 + (i % 50))),
          creditorName: `Creditor ${i % 50}`,
          amount: `${(i % 9) + 1}.25`,
          currency: 'BGN',
          remittanceInformation: `Invoice ${i}`,
        })),
      },
    },
  );
  if (started.status !== 201 || !started.body.scaRedirectUrl)
    throw new Error(`bulk of ${size}: ${started.status} ${JSON.stringify(started.body).slice(0, 300)}`);
  await approveAtBank(started.body.scaRedirectUrl);
  const deadline = Date.now() + BULK_TIMEOUT_SECONDS * 1000;
  for (;;) {
    const { status, body } = await call<{ items: BulkSummary[] }>('POST', '/api/8/bulk-payments/search', {
      headers: { 'x-agent-hash': agentHash },
      body: { criteria: { bulkId: started.body.bulkId }, entriesLimit: 0 },
    });
    const summary = body.items?.[0];
    if (status !== 200 || !summary) throw new Error(`bulk search: ${status} ${JSON.stringify(body)}`);
    if (['CONFIRMED', 'PARTIALLY_CONFIRMED', 'FAILED'].includes(summary.status) || Date.now() > deadline)
      return { bulkId: started.body.bulkId, summary };
    await pause(500);
  }
}

/** History lengths (events) of the bulk's workflow (its last run) and of each batch child. */
async function bulkHistories({ client }: BenchContext, bulkId: string) {
  const length = async (workflowId: string) =>
    (await client.workflow.getHandle(workflowId).fetchHistory()).events?.length ?? 0;
  const parent = await length(bulkPaymentWorkflowId(bulkId));
  let largestChild = 0;
  let children = 0;
  for (; ; children++) {
    const events = await length(bulkBatchWorkflowId(bulkId, children)).catch(() => undefined);
    if (events === undefined) break;
    largestChild = Math.max(largestChild, events);
  }
  return { parent, children, largestChild, largest: Math.max(parent, largestChild) };
}
