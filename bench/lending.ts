import { docTypeIds } from '../domain/lending/loan-documents.ts';
import { processRss } from './child.ts';
import type { BenchContext } from './context.ts';
import { type LendingSetUp, lendingCall, setUpLendingTenant, signingCodeWatcher } from './lending-setup.ts';
import { CONNECTIONS, httpLoad, percentile, runLoad } from './load.ts';
import { cpuPer, watchResources } from './resources.ts';
import { endToEndBaseline, latency, mb, rate, report, seconds } from './results.ts';

const SECTION = 'lending';
/** Loans taken from application to Active (after CONNECTIONS unmeasured ones); 0 measures Calculate only. */
const LOANS = Number(process.env.BENCH_LOANS ?? 1000);
/** Instalments of the calculated schedule (the spec's longest mortgage-like term). */
const CALCULATE_TERM = 360;
/**
 * How long the stack rests after the loans before its memory is read. The open loans are what the
 * memory figure is about, not the garbage of the run that opened them: V8 lets its heaps grow under load
 * and its memory reducer gives the pages back some 45-60 s after allocation stops (measured: 1,032 open
 * loans, 1,163 MB right after the run, 652 MB 60 s later, flat to 180 s).
 */
const REST_SECONDS = Number(process.env.BENCH_REST_SECONDS ?? 90);

/**
 * Lending platform:
 *   POST /lending/PublicApi/v7-12/Customer/Loans/Calculate for CALCULATE_TERM monthly instalments (the
 *   product read, the schedule computed in exact decimals, answered as JSON) vs (a) the bare insert;
 *   LOANS loans from application to Active, CONNECTIONS at a time, each by a customer registered
 *   beforehand: Loans/Create, Process (the sandbox bureau's decision over HTTP), AcceptLoanOffer, both
 *   system documents signed with the codes sent by SMS through the messaging gateway, Management Approve,
 *   Management/Loans/Disbursements (paid out outside the platform): wall time and loans/s vs (c), the
 *   loans' workflows still open (they stay open to service the loan) counted through Temporal's
 *   visibility, the CPU per loan of the stack, the Temporal server and PostgreSQL, and the memory of the
 *   stack (API + worker) and of the Temporal server once the stack has rested REST_SECONDS.
 */
export async function benchLending(context: BenchContext): Promise<void> {
  const lending = await setUpLendingTenant(context, CALCULATE_TERM);
  await benchCalculate(context, lending);
  if (LOANS > 0) await benchLoans(context, lending);
}

async function benchCalculate(context: BenchContext, lending: LendingSetUp): Promise<void> {
  const { stack, baselines } = context;
  const calculating = await httpLoad({
    url: `${stack.apiUrl}/lending/PublicApi/v7-12/Customer/Loans/Calculate`,
    method: 'POST',
    headers: { lender_ApiKey: lending.keys.frontOffice },
    body: JSON.stringify({ productName: lending.productName, amount: '150000.00', term: CALCULATE_TERM }),
    // A whole schedule, not an error: its last instalment is there.
    expect: (status, body) => status === 200 && body.includes(`"number":${CALCULATE_TERM},`),
  });
  report({
    section: SECTION,
    operation: `POST /lending/PublicApi/v7-12/Customer/Loans/Calculate, ${CALCULATE_TERM} instalments`,
    figure: rate(calculating, 'calculations/s'),
    latency: latency(calculating),
    perSecond: calculating.perSecond,
    baseline: {
      label: '(a) bare insert',
      figure: rate(baselines.write),
      perSecond: baselines.write.perSecond,
    },
  });
  if (calculating.firstFailure) console.log(`  first failure: ${calculating.firstFailure}`);
}

async function benchLoans(context: BenchContext, lending: LendingSetUp): Promise<void> {
  const { stack, baselines } = context;
  const customers = await lending.registerCustomers(LOANS + CONNECTIONS);
  const codes = signingCodeWatcher(context);
  try {
    /** One loan of the customer with `token`, from its application to Active. */
    const toActive = async (token: string) => {
      const asCustomer = (path: string, query?: Record<string, string>, body?: unknown) =>
        lendingCall(stack, 'POST', path, { key: lending.keys.frontOffice, token, query, body });
      const asManagement = (path: string, body?: unknown) =>
        lendingCall(stack, 'POST', path, { key: lending.keys.management, body });
      const created = await asCustomer('/Customer/Loans/Create', undefined, {
        productName: lending.productName,
        amount: '3000.00',
        term: 12,
      });
      const loanId = String(created.loanId);
      const expectStatus = (answer: Record<string, unknown>, status: string) => {
        if (answer.status !== status)
          throw new Error(`loan ${loanId} is ${String(answer.status)}, not ${status}`);
      };
      expectStatus(created, 'Origination');
      // Process answers once the request is recorded; the bureau's decision follows in the loan.
      await asCustomer(`/Customer/Loans/${loanId}/Process`);
      const readLoan = () =>
        lendingCall(stack, 'GET', `/Customer/Loans/${loanId}`, { key: lending.keys.frontOffice, token });
      let decided = await readLoan();
      for (let polls = 0; decided.status === 'Origination' && polls < 600; polls += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        decided = await readLoan();
      }
      expectStatus(decided, 'Offer confirmation');
      expectStatus(await asCustomer(`/Customer/Loans/${loanId}/AcceptLoanOffer`), 'Waiting for approval');
      // AcceptLoanOffer sent the first code of each document: no ResendSmsCode.
      for (const docTypeId of docTypeIds) {
        const code = await codes.codeFor(loanId, docTypeId);
        await asCustomer(`/Customer/Loans/${loanId}/SignDocument`, { docTypeId, code });
      }
      expectStatus(await asManagement(`/Management/Loans/${loanId}/Approve`), 'Approved');
      expectStatus(
        await asManagement('/Management/Loans/Disbursements', { loanId, amount: '3000.00' }),
        'Active',
      );
    };

    const warmUp = customers.slice(0, CONNECTIONS);
    await runLoad(warmUp.length, CONNECTIONS, async (i) => void (await toActive(warmUp[i] as string)));
    const measured = customers.slice(CONNECTIONS);
    console.log(`  taking ${measured.length} loans from application to Active, ${CONNECTIONS} at a time...`);
    const before = processRss(stack.pid);
    const resources = await watchResources(
      [
        { label: 'stack (API + worker + sandboxes)', pid: stack.pid },
        ...(context.temporalPid ? [{ label: 'Temporal server', pid: context.temporalPid }] : []),
      ],
      { db: context.db, databases: context.postgresDatabases },
    );
    const result = await runLoad(
      measured.length,
      CONNECTIONS,
      async (i) => void (await toActive(measured[i] as string)),
    );
    // The CPU counts until the last loan's work has drained, not only until the last loan was Active.
    await context.drain('the loans');
    const used = await resources.stop();
    const loans = {
      perSecond: result.perSecond,
      ok: result.latencies.length,
      failed: result.errors,
      p50: percentile(result.latencies, 0.5),
      p99: percentile(result.latencies, 0.99),
    };
    report({
      section: SECTION,
      operation: `loan from application to Active (Create, Process with the bureau, AcceptLoanOffer, 2 documents signed by SMS code, Approve, Disbursements), ${measured.length} at ${CONNECTIONS} at a time`,
      figure: `${seconds(result.seconds)}, ${rate(loans, 'loans/s')}`,
      latency: latency(loans),
      perSecond: loans.perSecond,
      baseline: endToEndBaseline(baselines),
      note: `stack (API + worker) RSS ${mb(before)} before, peak ${mb(used[0]?.peakRss)}`,
    });
    const cpu = cpuPer(used, loans.ok, { digits: 3 });
    report({
      section: SECTION,
      operation: `CPU seconds per loan from application to Active (${loans.ok} loans; ${cpu.byProcess})`,
      figure: `${cpu.total.toFixed(3)} CPU-s`,
    });
    if (result.firstFailure) console.log(`  first failure: ${result.firstFailure}`);

    // Visibility follows the workflows a moment later: the count settles.
    const open = await lending.settledCount(`ExecutionStatus = 'Running'`, customers.length - result.errors);
    const active = await lending.settledCount(
      `ExecutionStatus = 'Running' AND BusinessStatus = 'Active'`,
      open,
    );
    const closed = await lending.settledCount(`ExecutionStatus != 'Running'`, 0);
    const afterRun = processRss(stack.pid);
    console.log(`  resting ${REST_SECONDS} s before reading the stack's memory...`);
    await new Promise((resolve) => setTimeout(resolve, REST_SECONDS * 1000));
    const temporalRss = context.temporalPid ? processRss(context.temporalPid) : undefined;
    // Where the stack's memory is: the main thread's JavaScript heap, or outside it (the workflow
    // threads' heaps, the SDK's native core, buffers).
    const usage = await context.control<NodeJS.MemoryUsage>('GET', '/memory');
    report({
      section: SECTION,
      operation: `${open} loan workflows open (Temporal visibility; ${active} of them Active, on their due-date timers): stack (API + worker + sandboxes) RSS after ${REST_SECONDS} s at rest`,
      figure: mb(processRss(stack.pid)),
      note: `${mb(afterRun)} right after the run; main-thread heap used ${mb(usage.heapUsed)}, external ${mb(usage.external)}; Temporal server RSS ${mb(temporalRss)}; ${CONNECTIONS} warm-up loans included; ${closed} closed`,
    });
  } finally {
    await codes.stop();
  }
}
