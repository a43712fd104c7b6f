import { and, count, eq, inArray } from 'drizzle-orm';
import { collectObligations } from '../db/schema/collect.ts';
import { collectStatementCredits } from '../db/schema/collect-statements.ts';
import { camt053 } from '../test/collect/camt-builder.ts';
import { processRss, watchPeakRss } from './child.ts';
import { type Merchant, merchantNotifications, registerObligations } from './collect-obligations.ts';
import type { BenchContext } from './context.ts';
import { pause } from './load.ts';
import { endToEndBaseline, mb, report, seconds } from './results.ts';

const SECTION = 'collect';
/** Credits of the statement, each paying one of as many open deposit slips. */
const CREDITS = Number(process.env.BENCH_STATEMENT_CREDITS ?? 10_000);
/** How long to wait for every matched obligation to be PAID (and notified) before reporting what was. */
const TIMEOUT_SECONDS = Number(process.env.BENCH_STATEMENT_TIMEOUT_SECONDS ?? 1800);
const AMOUNT = '22.80';

/**
 * Statement import (issue 12): CREDITS deposit slips registered, then one camt.053 whose every credit
 * names one of them, uploaded as the operator does (POST /admin/collect/statements). Measured from the
 * upload: read and stored (the 202), matched (no credit of the statement left `received`), every
 * matched obligation PAID in the read model, every one notified to the sandbox merchant; the stack
 * process's (API + worker) peak RSS meanwhile.
 */
export async function benchStatementImport(context: BenchContext): Promise<void> {
  const { stack, baselines, db } = context;
  const merchant = await context.control<Merchant>('POST', '/merchant', { name: 'Bench statement' });
  console.log(`  statement import: registering ${CREDITS} deposit slips...`);
  const { obligations, load } = await registerObligations(
    context,
    merchant,
    'reg_vnbel.cgi',
    CREDITS,
    AMOUNT,
  );
  if (obligations.length === 0) throw new Error('no deposit slip was registered');
  const stamp = Date.now();
  const xml = camt053({
    id: `BENCH-${stamp}`,
    entries: obligations.map((obligation, i) => ({
      amount: AMOUNT,
      ref: `BENCH-${stamp}-${i}`,
      ustrd: [`Deposit slip IDN ${obligation.idn}`],
    })),
  });
  const bytes = Buffer.byteLength(xml);
  const what = `camt.053 of ${obligations.length} credits (${mb(bytes)}) against as many open deposit slips`;

  // What the stack held before the statement (the registered obligations): the peak's reference.
  const atUpload = processRss(stack.pid);
  const peak = watchPeakRss(stack.pid);
  const started = performance.now();
  const since = () => (performance.now() - started) / 1000;
  const response = await fetch(`${stack.apiUrl}/admin/collect/statements`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/xml' },
    body: xml,
  });
  const answer = (await response.json()) as { statements?: { statementId: string; credits: number }[] };
  const stored = since();
  const statementId = answer.statements?.[0]?.statementId;
  if (response.status !== 202 || !statementId) {
    peak.stop();
    throw new Error(
      `the statement upload answered ${response.status} ${JSON.stringify(answer).slice(0, 300)}`,
    );
  }

  const creditsIn = async (states: ('received' | 'matched' | 'settled' | 'review')[]) => {
    const [row] = await db
      .select({ n: count() })
      .from(collectStatementCredits)
      .where(
        and(
          eq(collectStatementCredits.statementId, statementId),
          inArray(collectStatementCredits.state, states),
        ),
      );
    return row?.n ?? 0;
  };
  const paidCount = async () => {
    const [row] = await db
      .select({ n: count() })
      .from(collectObligations)
      .where(and(eq(collectObligations.merchantMin, merchant.min), eq(collectObligations.status, 'PAID')));
    return row?.n ?? 0;
  };
  const deadline = Date.now() + TIMEOUT_SECONDS * 1000;
  const until = async (done: () => Promise<boolean>) => {
    while (!(await done()) && Date.now() < deadline) await pause(200);
    return since();
  };

  const matchedAt = await until(async () => (await creditsIn(['received'])) === 0);
  const matched = await creditsIn(['matched', 'settled']);
  const review = await creditsIn(['review']);
  let paid = 0;
  const paidAt = await until(async () => {
    paid = await paidCount();
    return paid >= matched;
  });
  let notifiedLines = 0;
  const notifiedAt = await until(async () => {
    const received = await merchantNotifications(context, merchant);
    notifiedLines = new Set(received.lines.filter((line) => line.status === 'PAID').map((l) => l.invoice))
      .size;
    return notifiedLines >= paid;
  });
  const peakRss = peak.stop();
  const capped = paid < matched ? ` (cap ${TIMEOUT_SECONDS} s reached: ${paid} of ${matched} PAID)` : '';

  const baseline = endToEndBaseline(baselines);
  report({
    section: SECTION,
    operation: `statement import: ${what}: read and stored (POST /admin/collect/statements → 202)`,
    figure: seconds(stored),
    perSecond: obligations.length / stored,
    baseline,
    note: `${(obligations.length / stored).toFixed(0)} credits/s; ${obligations.length} deposit slips registered at ${load.perSecond.toFixed(1)} req/s beforehand`,
  });
  report({
    section: SECTION,
    operation: 'statement import: every credit matched (none left received), since the upload',
    figure: seconds(matchedAt),
    perSecond: obligations.length / matchedAt,
    baseline,
    note: `${matched} matched, ${review} to review`,
  });
  report({
    section: SECTION,
    operation: 'statement import: every matched obligation PAID in the read model, since the upload',
    figure: `${seconds(paidAt)}, ${(paid / paidAt).toFixed(1)} obligations/s${capped}`,
    perSecond: paid / paidAt,
    baseline,
    note: `the merchant had received ${notifiedLines} PAID lines after ${seconds(notifiedAt)}`,
  });
  report({
    section: SECTION,
    operation:
      'statement import: peak RSS of the stack (API + worker) from the upload to the last notification',
    figure: mb(peakRss),
    baseline,
    note: `${mb(atUpload)} when the upload began, after the ${obligations.length} registrations`,
  });
}
