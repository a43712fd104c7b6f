import { eq } from 'drizzle-orm';
import { obAccounts } from '../db/schema/openbanking.ts';
import { bankHashOf } from '../domain/openbanking/bank-directory.ts';
import { enrolUser, type ObCall, openBankingClient } from '../test/support/openbanking-client.ts';
import type { BenchContext } from './context.ts';
import { CONNECTIONS, closedLoop, httpLoad, scenarioChosen } from './load.ts';
import { completeConsent, untilFinished } from './openbanking-consents.ts';
import { benchBulkPayments, benchSinglePayments } from './openbanking-payments.ts';
import { endToEndBaseline, latency, rate, report } from './results.ts';

const SECTION = 'open banking';
const BANK_A = bankHashOf('bank-a');
/** The sandbox PSU of the end-to-end consents: two accounts (40 + 10 transactions). */
const CONSENT_PSU = 'alice';

/**
 * Open-banking gateway, each scenario skippable (BENCH_SCENARIOS):
 *   consent: POST /api/8/consent (the consent workflow started, the bank's consent created, SCA link
 *   answered) vs (b) a bare workflow start;
 *   reads: GET /api/8/ibans and GET /api/8/balance/{ibanId} vs bare routes reading the same rows;
 *   consents: consents end to end (signup, POST consent, the bank's SCA page driven over HTTP, ACTIVE
 *   with the accounts stored), CONNECTIONS at a time, vs (c);
 *   payments, bulk: single and bulk payments (bench/openbanking-payments.ts).
 */
export async function benchOpenBanking(context: BenchContext): Promise<void> {
  const call = openBankingClient(context.stack.openBankingUrl);
  const agent = await context.control<{ agentHash: string }>('POST', '/agent');
  if (['consent', 'reads', 'consents'].some(scenarioChosen))
    await benchConsents(context, call, agent.agentHash);
  if (scenarioChosen('payments')) await benchSinglePayments(context, call, agent.agentHash);
  if (scenarioChosen('bulk')) await benchBulkPayments(context, call, agent.agentHash);
}

async function benchConsents(context: BenchContext, call: ObCall, agentHash: string): Promise<void> {
  const { stack, baselines, baselineUrl, db } = context;
  const agent = { agentHash };
  // A customer with one completed consent: the rows the reads read.
  const customer = await enrolUser(call, agent.agentHash);
  const userHeaders = { 'x-user-hash': customer.userHash };
  const { consentId } = await completeConsent(call, userHeaders, 'alice');
  const [finished] = await untilFinished(context, [consentId], 120_000);
  if (finished?.status !== 'ACTIVE') throw new Error(`the bench consent ended ${finished?.status}`);
  const [account] = await db.select().from(obAccounts).where(eq(obAccounts.consentId, consentId)).limit(1);
  if (!account) throw new Error('the bench account is not in the read model');

  if (scenarioChosen('consent')) {
    const consent = await httpLoad({
      url: `${stack.openBankingUrl}/api/8/consent`,
      method: 'POST',
      headers: userHeaders,
      body: JSON.stringify({ bankHash: BANK_A }),
    });
    report({
      section: SECTION,
      operation: 'POST /openbanking/api/8/consent',
      figure: rate(consent),
      latency: latency(consent),
      perSecond: consent.perSecond,
      baseline: {
        label: '(b) bare start',
        figure: rate(baselines.start),
        perSecond: baselines.start.perSecond,
      },
      target: 0.8,
    });
    if (consent.firstFailure) console.log(`  first failure: ${consent.firstFailure}`);
    await context.drain('the started consents');
  }

  const reads = [
    ['GET /openbanking/api/8/ibans', '/api/8/ibans', `/read/ibans/${customer.userId}`],
    [
      'GET /openbanking/api/8/balance/{ibanId}',
      `/api/8/balance/${account.id}`,
      `/read/balance/${account.id}`,
    ],
  ] as const;
  for (const [operation, apiPath, barePath] of scenarioChosen('reads') ? reads : []) {
    const bare = await httpLoad({ url: `${baselineUrl}${barePath}` });
    const api = await httpLoad({ url: `${stack.openBankingUrl}${apiPath}`, headers: userHeaders });
    report({
      section: SECTION,
      operation,
      figure: rate(api),
      latency: latency(api),
      perSecond: api.perSecond,
      baseline: { label: 'bare read of the same rows', figure: rate(bare), perSecond: bare.perSecond },
      target: 0.8,
    });
    if (api.firstFailure) console.log(`  first failure: ${api.firstFailure}`);
  }

  const oneConsent = async () => {
    const user = await enrolUser(call, agent.agentHash);
    const started = await completeConsent(call, { 'x-user-hash': user.userHash }, CONSENT_PSU);
    const [row] = await untilFinished(context, [started.consentId], 120_000);
    if (row?.status !== 'ACTIVE') throw new Error(`consent ended ${row?.status}`);
  };
  if (!scenarioChosen('consents')) return;
  const endToEnd = await closedLoop(context.seconds, CONNECTIONS, oneConsent);
  report({
    section: SECTION,
    operation: `consent end to end (signup, POST consent, SCA over HTTP, ACTIVE with accounts), ${CONNECTIONS} at a time`,
    figure: rate(endToEnd, 'consents/s'),
    latency: latency(endToEnd),
    perSecond: endToEnd.perSecond,
    baseline: endToEndBaseline(baselines),
  });
  if (endToEnd.firstFailure) console.log(`  first failure: ${endToEnd.firstFailure}`);
}
